// Package ingress finds the Ingress controllers that serve a pod's
// Services (Routes) and reads a controller's own view of its backends
// (TraefikListWatch), as a list-watch that pkg/listwatch streams like any
// other. docs/ingress.md gives the facts the reading rests on.
package ingress
