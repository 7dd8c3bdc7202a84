package timeline

import (
	"net"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
)

// ingressState is the pod's server in one of the proxy's services:
// present, and fenced (kept, but no longer picked for new requests).
type ingressState struct{ fenced bool }

// ingressEvent records a change of one of the proxy's services (a
// ingress.StreamName notice): the pod's server fenced, unfenced, added or
// removed. Servers are matched to the pod by its addresses.
func (r *Recorder) ingressEvent(recv time.Time, typ watch.EventType, o runtime.Object) {
	name, servers, ok := ingress.Servers(o)
	if !ok {
		return
	}
	if typ == watch.Deleted {
		servers = nil
	}
	r.ingressState(recv, name, servers, false)
}

// ingressList records the proxy's services as listed: those that held the
// pod's server and are absent lost it.
func (r *Recorder) ingressList(recv time.Time, list []runtime.Object, initial bool) {
	seen := map[string]bool{}
	for _, o := range list {
		if name, servers, ok := ingress.Servers(o); ok {
			seen[name] = true
			r.ingressState(recv, name, servers, initial)
		}
	}
	for name := range r.ingress {
		if !seen[name] {
			r.ingressState(recv, name, nil, false)
		}
	}
}

// ingressState compares the pod's server in service name with the last
// state seen and records the change; the first List records the pod's
// server where it is (an Initial event).
func (r *Recorder) ingressState(recv time.Time, name string, servers []ingress.Server, initial bool) {
	old, had := r.ingress[name]
	cur, has := r.serverOf(servers)
	if had == has && old == cur || initial && !has {
		return
	}
	e := Event{Recv: recv, Track: Ingress, Service: name, Initial: initial}
	switch {
	case !has:
		delete(r.ingress, name)
		e.Kind, e.Message = KindIngressRemoved, "Ingress controller removed the pod's server from "+name
	case !had:
		r.ingress[name] = cur
		e.Kind, e.Message = KindIngressAdded, "Ingress controller added the pod's server to "+name
	default:
		r.ingress[name] = cur
		e.Kind, e.Message = KindIngressFenced, "Ingress controller fenced the pod's server in "+name+": no new requests"
		if !cur.fenced {
			e.Kind, e.Message = KindIngressAdded, "Ingress controller unfenced the pod's server in "+name
		}
	}
	r.add(e)
}

// serverOf finds the pod's server among servers, by its IP addresses.
func (r *Recorder) serverOf(servers []ingress.Server) (ingressState, bool) {
	for _, s := range servers {
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		host := u.Hostname()
		for _, ip := range r.pod.Status.PodIPs {
			if net.ParseIP(host).Equal(net.ParseIP(ip.IP)) {
				return ingressState{fenced: s.Fenced}, true
			}
		}
	}
	return ingressState{}, false
}
