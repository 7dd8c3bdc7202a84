package argorollout

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rollout returns a Rollout of replicas (0: unset) with strategy.
func rollout(replicas int64, strategy map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"strategy": strategy}
	if replicas > 0 {
		spec["replicas"] = replicas
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(2)}, "spec": spec,
		"status": map[string]any{"observedGeneration": "2"}}}
}

func TestSurgePlan(t *testing.T) {
	pauseForever := map[string]any{"steps": []any{map[string]any{"setWeight": int64(50)}, map[string]any{"pause": map[string]any{}}}}
	timed := map[string]any{"steps": []any{map[string]any{"setWeight": int64(50)}, map[string]any{"pause": map[string]any{"duration": "1m"}},
		map[string]any{"pause": map[string]any{"duration": int64(10)}}}}
	for _, tc := range []struct {
		name               string
		ro                 *unstructured.Unstructured
		can                bool
		surge, unavailable int32
		planHas            string
	}{
		// Argo's defaults, 25 % each: one replica surges 1 and keeps it.
		{"canary defaults, 1 replica", rollout(0, map[string]any{"canary": map[string]any{}}), true, 1, 0, "1 new at a time"},
		{"canary defaults, 10 replicas", rollout(10, map[string]any{"canary": map[string]any{}}), true, 3, 2, "ALL its 10 pod(s)"},
		// Argo reads every string as a percentage: "1" is 1 %, rounded up.
		{"string without %", rollout(10, map[string]any{"canary": map[string]any{"maxSurge": "1", "maxUnavailable": "50"}}), true, 1, 5, "maxUnavailable 5"},
		{"maxSurge 0", rollout(1, map[string]any{"canary": map[string]any{"maxSurge": int64(0)}}), false, 0, 1, "maxSurge resolves to 0"},
		{"maxUnavailable all", rollout(2, map[string]any{"canary": map[string]any{"maxUnavailable": "100%"}}), false, 1, 2, "may remove every old pod"},
		{"pause without duration", rollout(1, map[string]any{"canary": pauseForever}), false, 1, 0, "step 2 is a pause without a duration"},
		{"timed pauses", rollout(1, map[string]any{"canary": timed}), true, 1, 0, "steps: setWeight 50, pause 1m0s, pause 10s (its pauses add 1m10s)"},
		{"blueGreen", rollout(3, map[string]any{"blueGreen": map[string]any{"activeService": "web"}}), true, 3, 0, "switches the active Service web to it; the drain then evicts the old pods, which their ReplicaSet starts again elsewhere, outside the active Service, until Argo scales it down 30 s after the switch"},
		{"blueGreen manual", rollout(1, map[string]any{"blueGreen": map[string]any{"autoPromotionEnabled": false}}), false, 1, 0, "manual promotion"},
		{"no strategy", rollout(1, map[string]any{}), false, 0, 0, "cannot tell its strategy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SurgePlan(tc.ro)
			if s.CanSurge != tc.can || s.MaxSurge != tc.surge || s.MaxUnavailable != tc.unavailable || !strings.Contains(s.Plan, tc.planHas) {
				t.Errorf("got can %v surge %d unavailable %d plan %q; want %v %d %d and %q", s.CanSurge, s.MaxSurge, s.MaxUnavailable, s.Plan,
					tc.can, tc.surge, tc.unavailable, tc.planHas)
			}
		})
	}
	// No controller has handled the Rollout (Argo uninstalled, its CRD
	// and ReplicaSets left), or not its last change: a restart would
	// never be rolled, and the drain would wait for it forever.
	for status, want := range map[string]string{"": "no Argo Rollouts controller has handled it", "1": "its generation 2 not handled"} {
		ro := rollout(1, map[string]any{"canary": map[string]any{}})
		ro.Object["status"] = map[string]any{"observedGeneration": status}
		if status == "" {
			delete(ro.Object, "status")
		}
		if s := SurgePlan(ro); s.CanSurge || !strings.Contains(s.Plan, want) {
			t.Errorf("observedGeneration %q: %+v", status, s)
		}
	}
	// Degraded (an invalid spec, an abort, a progress deadline passed):
	// the restart rolls the same template Argo could not bring to Healthy,
	// so it fails, and the drain then evicts the pods it was to keep.
	degraded := rollout(1, map[string]any{"canary": map[string]any{}})
	degraded.Object["status"] = map[string]any{"observedGeneration": "2", "phase": "Degraded", "message": "InvalidSpec: service \"web\" not found"}
	if s := SurgePlan(degraded); s.CanSurge || !strings.Contains(s.Plan, `cannot surge: the Rollout is Degraded (InvalidSpec: service "web" not found)`) {
		t.Errorf("a Degraded Rollout: %+v", s)
	}
	paused := rollout(1, map[string]any{"canary": map[string]any{}})
	paused.Object["spec"].(map[string]any)["paused"] = true
	if s := SurgePlan(paused); s.CanSurge || !strings.Contains(s.Plan, "paused") {
		t.Errorf("a paused Rollout: %+v", s)
	}
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status map[string]any
		done   bool
		failed string
	}{
		{"generation not observed", map[string]any{"observedGeneration": "1", "phase": "Healthy"}, false, ""},
		{"healthy", map[string]any{"observedGeneration": "2", "phase": "Healthy"}, true, ""},
		{"progressing", map[string]any{"observedGeneration": "2", "phase": "Progressing"}, false, ""},
		{"unpausing", map[string]any{"observedGeneration": "2", "phase": "Healthy", "controllerPause": true}, false, ""},
		{"degraded", map[string]any{"observedGeneration": "2", "phase": "Degraded", "message": "ProgressDeadlineExceeded: too slow"}, false, "is Degraded: ProgressDeadlineExceeded"},
	} {
		ro := rollout(1, map[string]any{"canary": map[string]any{}})
		ro.Object["status"] = tc.status
		done, err := Status(ro)
		if done != tc.done || (err == nil) != (tc.failed == "") || (err != nil && !strings.Contains(err.Error(), tc.failed)) {
			t.Errorf("%s: done %v err %v; want %v and %q", tc.name, done, err, tc.done, tc.failed)
		}
	}
}
