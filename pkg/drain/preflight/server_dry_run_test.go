package preflight

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// Each dry-run answer is one of eviction's kinds, with the HTTP code of a
// refusal: RBAC's 403 is Forbidden (it was once a string outside the
// enum), a budget's 429 BudgetRefused, a transport error Lost.
func TestServerAnswerKinds(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	p := PodEntry{Namespace: "shop", Name: "web-a"}
	for _, c := range []struct {
		name string
		err  error
		kind eviction.AnswerKind
		code int32
	}{
		{"accepted", nil, eviction.Accepted, 0},
		{"RBAC", apierrors.NewForbidden(pods, "web-a", errors.New(`User "dev" cannot create resource "pods/eviction"`)), eviction.Forbidden, 403},
		{"budget", apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0), eviction.BudgetRefused, 429},
		{"transport", errors.New("connection reset by peer"), eviction.Lost, 0},
	} {
		a := serverAnswer(p, c.err)
		if a.Answer != c.kind || a.Code != c.code || a.Namespace != "shop" || a.Name != "web-a" {
			t.Errorf("%s: answer %+v, want kind %s code %d", c.name, a, c.kind, c.code)
		}
	}
}
