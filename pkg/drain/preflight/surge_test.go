package preflight

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// deployment is Deployment web in ns with replicas, strategy type st and
// the given maxSurge and maxUnavailable (nil: the API's 25 %).
func deployment(replicas int32, st appsv1.DeploymentStrategyType, surge, unavailable *intstr.IntOrString) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Strategy: appsv1.DeploymentStrategy{Type: st}}}
	if st == appsv1.RollingUpdateDeploymentStrategyType {
		quarter := intstr.FromString("25%")
		if surge == nil {
			surge = &quarter
		}
		if unavailable == nil {
			unavailable = &quarter
		}
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: surge, MaxUnavailable: unavailable}
	}
	return d
}

// surgeInput is the Input of a drain of node-a holding every replica of
// Deployment web (ReplicaSet web-1), the Deployment being d.
func surgeInput(d *appsv1.Deployment, f Flags, pods ...corev1.Pod) Input {
	in := input(pods, nil, node("node-b", false))
	in.RSOwners = map[string]OwnerRef{ns + "/web-1": {Kind: "Deployment", Name: "web"}}
	in.Deployments = map[string]*appsv1.Deployment{ns + "/web": d}
	in.Flags = f
	return in
}

func TestSurgePlanReadsMaxSurgeAsTheController(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	num := func(n int) *intstr.IntOrString { v := intstr.FromInt(n); return &v }
	for _, tc := range []struct {
		name        string
		replicas    int32
		surge, unav *intstr.IntOrString
		can         bool
	}{
		{"25% of 1 rounds up to 1", 1, nil, nil, true},
		{"10% of 3 rounds up to 1", 3, pct("10%"), pct("0%"), true},
		{"0 surge", 1, num(0), num(1), false},
		{"0% surge", 2, pct("0%"), num(1), false},
		{"100% unavailable takes all at once", 2, num(1), pct("100%"), false},
		{"2 of 4", 4, num(2), num(0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := deployment(tc.replicas, appsv1.RollingUpdateDeploymentStrategyType, tc.surge, tc.unav)
			var pods []corev1.Pod
			for i := range tc.replicas {
				pods = append(pods, rsPod("web-1-"+string(rune('a'+i)), "web-1", "web", "node-a", true))
			}
			r := Check(surgeInput(d, Flags{Surge: true}, pods...))
			if len(r.Surge) != 1 {
				t.Fatalf("want one surge plan, got %+v", r.Surge)
			}
			s := r.Surge[0]
			// The controller's own scaling of an IntOrString: maxSurge
			// rounded up against spec.replicas.
			want, err := intstr.GetScaledValueFromIntOrPercent(d.Spec.Strategy.RollingUpdate.MaxSurge, int(tc.replicas), true)
			if err != nil {
				t.Fatal(err)
			}
			if int(s.MaxSurge) != want || s.CanSurge != tc.can {
				t.Fatalf("maxSurge %d canSurge %v, want %d %v (%s)", s.MaxSurge, s.CanSurge, want, tc.can, s.Plan)
			}
			if single := has(r.Warnings, WarningSingleReplica); tc.can && single != nil {
				t.Fatalf("a Deployment --surge rolls is warned of as going down: %s", single.Message)
			}
			if tc.can && !strings.Contains(s.Plan, RestartedAtAnnotation) {
				t.Fatalf("the plan does not say it restarts every pod: %s", s.Plan)
			}
		})
	}
}

func TestSurgePlanSaysWhyNot(t *testing.T) {
	recreate := deployment(1, appsv1.RecreateDeploymentStrategyType, nil, nil)
	r := Check(surgeInput(recreate, Flags{}, rsPod("web-1-a", "web-1", "web", "node-a", true)))
	if len(r.Surge) != 1 || r.Surge[0].CanSurge || !strings.Contains(r.Surge[0].Plan, "Recreate") {
		t.Fatalf("Recreate: %+v", r.Surge)
	}
	sts := rsPod("db-0", "", "db", "node-a", true)
	sts.OwnerReferences[0].Kind, sts.OwnerReferences[0].Name = "StatefulSet", "db"
	r = Check(surgeInput(recreate, Flags{}, sts))
	if len(r.Surge) != 1 || r.Surge[0].CanSurge || !strings.Contains(r.Surge[0].Plan, "StatefulSet") {
		t.Fatalf("StatefulSet: %+v", r.Surge)
	}
}

func TestSurgePlanOnlyWhenEveryReadyPodIsOnTheNode(t *testing.T) {
	d := deployment(2, appsv1.RollingUpdateDeploymentStrategyType, nil, nil)
	r := Check(surgeInput(d, Flags{}, rsPod("web-1-a", "web-1", "web", "node-a", true),
		rsPod("web-1-b", "web-1", "web", "node-b", true)))
	if len(r.Surge) != 0 {
		t.Fatalf("a Ready replica elsewhere needs no surge: %+v", r.Surge)
	}
}

func TestZeroCapacityFromReadyTimes(t *testing.T) {
	d := deployment(1, appsv1.RollingUpdateDeploymentStrategyType, nil, nil)
	p := rsPod("web-1-a", "web-1", "web", "node-a", true)
	created := time.Now().Add(-time.Hour)
	p.CreationTimestamp = metav1.NewTime(created)
	p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(created.Add(12 * time.Second))
	r := Check(surgeInput(d, Flags{}, p))
	if s := r.Surge[0]; s.ZeroCapacitySeconds == nil || *s.ZeroCapacitySeconds != 12 {
		t.Fatalf("want 12 s of zero capacity, got %+v", s)
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{RestartCount: 1}}
	r = Check(surgeInput(d, Flags{}, p))
	if s := r.Surge[0]; s.ZeroCapacitySeconds != nil || !strings.HasPrefix(s.ZeroCapacity, "unknown") {
		t.Fatalf("a restarted pod's Ready time is not its start's: want unknown, got %+v", s)
	}
}

// New pods that no other node may take never become Ready: the rollout
// --surge waits for would never end, the node cordoned, so the plan says
// it cannot surge, and why.
func TestSurgePlanNeedsRoomElsewhere(t *testing.T) {
	d := deployment(1, appsv1.RollingUpdateDeploymentStrategyType, nil, nil)
	pinned := rsPod("web-1-a", "web-1", "web", "node-a", true)
	pinned.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-a"}
	r := Check(surgeInput(d, Flags{Surge: true}, pinned))
	if len(r.Surge) != 1 || r.Surge[0].CanSurge || !strings.Contains(r.Surge[0].Plan, "cannot surge: no other node may take its new pods") {
		t.Fatalf("a workload pinned to the node: %+v", r.Surge)
	}
	if w := has(r.Warnings, WarningSingleReplica); w == nil || !strings.HasSuffix(w.Message, "so they stay Pending until the node is uncordoned") {
		t.Fatalf("not rolled, it goes down until the uncordon: want the single-replica warning saying so, got %+v", r.Warnings)
	}
	// Without --surge the zero capacity is not the pods' start time: it
	// lasts as long as the node is cordoned.
	if r := Check(surgeInput(d, Flags{}, pinned)); r.Surge[0].ZeroCapacitySeconds != nil || !strings.HasPrefix(r.Surge[0].ZeroCapacity, "as long as the node is cordoned: no other node") {
		t.Fatalf("without --surge: %+v", r.Surge[0])
	}
	if r = Check(surgeInput(d, Flags{Surge: true}, rsPod("web-1-a", "web-1", "web", "node-a", true))); !r.Surge[0].CanSurge {
		t.Fatalf("node-b may take it: %+v", r.Surge)
	}
	if w := has(r.Warnings, WarningSingleReplica); w != nil && strings.Contains(w.Message, "Pending") {
		t.Fatalf("node-b may take it, yet: %s", w.Message)
	}
}
