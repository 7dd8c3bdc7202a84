package timeline

import (
	"context"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
)

// routes says which Ingresses send traffic to the pod's Services, and,
// when the controller's API is not read, that its timing is estimated (a
// note the verdict keeps).
func (f *follower) routes(ctx context.Context, services []string) {
	if msg, estimated := ingress.Discover(ctx, f.cfg.Client, f.cfg.Namespace, services, f.cfg.IngressAPI); estimated {
		f.note(msg)
	} else if msg != "" {
		f.say(msg)
	}
}
