package preflight

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
)

// rolloutInput is the Input of a drain of node-a holding the one replica
// of Argo Rollout web (ReplicaSet web-1), the Rollout being ro (nil:
// unread, unknown says why).
func rolloutInput(ro *unstructured.Unstructured, unknown string) Input {
	in := surgeInput(nil, Flags{Surge: true}, rsPod("web-1-a", "web-1", "web", "node-a", true))
	in.RSOwners = map[string]OwnerRef{ns + "/web-1": {Kind: "Rollout", Name: "web"}}
	in.Rollouts = map[string]*unstructured.Unstructured{}
	if ro != nil {
		in.Rollouts[ns+"/web"] = ro
	}
	in.RolloutsUnknown = map[string]string{ns: unknown}
	return in
}

// canaryRollout is Rollout web with one replica and the canary strategy.
func canaryRollout(canary map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "web", "namespace": ns, "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1), "strategy": map[string]any{"canary": canary}},
		"status":   map[string]any{"observedGeneration": "1"}}}
}

func TestSurgePlanOfARollout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ro      *unstructured.Unstructured
		unknown string
		can     bool
		planHas string
	}{
		{"canary, Argo's defaults", canaryRollout(map[string]any{}), "", true, "1 new at a time"},
		{"pause without duration", canaryRollout(map[string]any{"steps": []any{map[string]any{"pause": map[string]any{}}}}), "", false,
			"canary step 1 is a pause without a duration"},
		{"maxSurge 0", canaryRollout(map[string]any{"maxSurge": int64(0)}), "", false, "maxSurge resolves to 0"},
		{"CRD not served", nil, "the API server does not serve rollouts.argoproj.io/v1alpha1", false,
			"cannot surge: cannot tell: the API server does not serve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(rolloutInput(tc.ro, tc.unknown))
			if len(r.Surge) != 1 {
				t.Fatalf("want one surge plan, got %+v", r.Surge)
			}
			s := r.Surge[0]
			if s.Owner.Kind != "Rollout" || s.CanSurge != tc.can || !strings.Contains(s.Plan, tc.planHas) {
				t.Fatalf("plan %+v; want canSurge %v and %q", s, tc.can, tc.planHas)
			}
			if single := has(r.Warnings, WarningSingleReplica); tc.can && single != nil {
				t.Fatalf("a Rollout --surge rolls is warned of as going down: %s", single.Message)
			}
		})
	}
}

func TestSurgePlanOfOtherKindsNamesWhatItRolls(t *testing.T) {
	in := rolloutInput(nil, "")
	in.RSOwners[ns+"/web-1"] = OwnerRef{Kind: "CloneSet", Name: "web"}
	r := Check(in)
	if len(r.Surge) != 1 || r.Surge[0].CanSurge || r.Surge[0].Plan != "cannot surge: --surge rolls Deployments and Argo Rollouts only, not a CloneSet" {
		t.Fatalf("CloneSet: %+v", r.Surge)
	}
}

func TestReadRolloutsOnlyWhereARolloutOwnsAReplicaSet(t *testing.T) {
	ctx := context.Background()
	owners := map[string]OwnerRef{ns + "/web-1": {Kind: "Rollout", Name: "web"}}
	listKinds := map[schema.GroupVersionResource]string{argorollout.Resource: "RolloutList"}
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, canaryRollout(map[string]any{}))
	if got, why := readRollouts(ctx, dc, ns, owners); len(got) != 1 || got[ns+"/web"] == nil || why != "" {
		t.Fatalf("read %v (%q), want Rollout web", got, why)
	}
	dc.PrependReactor("list", "rollouts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(argorollout.Resource.GroupResource(), "")
	})
	if _, why := readRollouts(ctx, dc, ns, owners); !strings.Contains(why, "does not serve rollouts.argoproj.io") {
		t.Fatalf("a resource not served: %q", why)
	}
	if got, why := readRollouts(ctx, dc, ns, map[string]OwnerRef{ns + "/web-1": {Kind: "Deployment", Name: "web"}}); len(got) != 0 || why != "" {
		t.Fatalf("read Rollouts where no Rollout owns a ReplicaSet: %v %q", got, why)
	}
}
