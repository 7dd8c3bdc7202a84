// Package callback calls the optional callbacks through which the pod,
// rollout and node watches report (the fields of their Printers): a
// program sets the ones it wants, and a nil one is not called.
package callback

// Call calls f(a, b), unless f is nil.
func Call[A, B any](f func(A, B), a A, b B) {
	if f != nil {
		f(a, b)
	}
}
