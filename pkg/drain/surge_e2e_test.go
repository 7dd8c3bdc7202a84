package drain_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// sliceWatch is the test's own watch of a Service's EndpointSlices: the
// lowest count of Ready endpoints it saw.
type sliceWatch struct {
	mu     sync.Mutex
	ready  map[string]int // slice name -> its Ready endpoints
	lowest int
	seen   bool
	stop   context.CancelFunc
	done   chan struct{}
}

// watchSlices starts watching the EndpointSlices of service and returns
// once they are listed.
func watchSlices(t *testing.T, f *fixture, service string) *sliceWatch {
	t.Helper()
	w := &sliceWatch{ready: map[string]int{}, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(f.ctx)
	w.stop = cancel
	lw := cache.NewFilteredListWatchFromClient(f.env.Client.DiscoveryV1().RESTClient(), "endpointslices", f.ns,
		func(o *metav1.ListOptions) { o.LabelSelector = discoveryv1.LabelServiceName + "=" + service })
	synced := make(chan struct{})
	go func() {
		defer close(w.done)
		_, _ = watchtools.UntilWithSync(ctx, lw, &discoveryv1.EndpointSlice{}, func(store cache.Store) (bool, error) {
			for _, o := range store.List() {
				w.take(watch.Added, o.(*discoveryv1.EndpointSlice))
			}
			close(synced)
			return false, nil
		}, func(ev watch.Event) (bool, error) {
			if s, ok := ev.Object.(*discoveryv1.EndpointSlice); ok {
				w.take(ev.Type, s)
			}
			return false, nil
		})
	}()
	select {
	case <-synced:
	case <-w.done:
		t.Fatal("the EndpointSlice watch ended before its list")
	}
	return w
}

// take records one slice's state and the new total.
func (w *sliceWatch) take(typ watch.EventType, s *discoveryv1.EndpointSlice) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, ep := range s.Endpoints {
		if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
			n++
		}
	}
	w.ready[s.Name] = n
	if typ == watch.Deleted {
		delete(w.ready, s.Name)
	}
	total := 0
	for _, c := range w.ready {
		total += c
	}
	if !w.seen || total < w.lowest {
		w.lowest, w.seen = total, true
	}
}

// Lowest stops the watch and returns the lowest Ready count it saw.
func (w *sliceWatch) Lowest() int {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lowest
}

// service creates a Service selecting app=app and waits until its
// EndpointSlices hold ready Ready endpoints.
func (f *fixture) service(app string, ready int) {
	f.t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": app}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt(8080)}}}}
	f.create(svc, func() error {
		_, err := f.env.Client.CoreV1().Services(f.ns).Create(f.ctx, svc, metav1.CreateOptions{})
		return err
	})
	e2e.WaitFor(f.t, e2e.SetupWait, app+"'s Ready endpoints", func() bool {
		list, err := f.env.Client.DiscoveryV1().EndpointSlices(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + app})
		n := 0
		for _, s := range list.Items {
			for _, ep := range s.Endpoints {
				if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
					n++
				}
			}
		}
		return err == nil && n == ready
	})
}

// recreate switches Deployment name to the Recreate strategy.
func (f *fixture) recreate(name string) {
	f.t.Helper()
	patch := `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`
	if _, err := f.env.Client.AppsV1().Deployments(f.ns).Patch(f.ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// surgeReport is the -o json document with the drain's own types.
type surgeReport struct {
	Nodes []drain.NodeResult `json:"nodes"`
}

// TestDrainSurgeKeepsASingleReplicaServing: a single-replica Deployment
// behind a Service on a kwok node. The preflight names it, with its zero
// capacity without --surge and the rollout --surge starts (and that a
// Recreate Deployment beside it cannot surge); the drain with --surge
// rolls it: the test's own EndpointSlice watch never sees zero Ready
// endpoints, the old pod is gone, the new one Ready on the other node, and
// the node drained.
func TestDrainSurgeKeepsASingleReplicaServing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	f.placeOn([]string{b}, func() {
		f.deploy("web", "web", 1, sel, nil)
		f.deploy("batch", "batch", 1, sel, nil)
	})
	f.recreate("batch")
	f.waitPods("app=batch", 1, func(p *corev1.Pod) bool { return p.Spec.NodeName == a && isReady(p) })
	f.service("web", 1)
	old := f.pods("app=web", onNode(a))
	if len(old) != 1 {
		t.Fatalf("%d web pods on %s, want 1", len(old), a)
	}

	res := f.drain(a, "--dry-run=client")
	expect(t, res, 0, "Workloads with every Ready pod on this node:", f.ns+"/Deployment/web",
		"without --surge: no Ready pod for ", "--surge would avoid it")
	res = f.drain(a, "--dry-run=client", "--surge", "-o", "json")
	var doc surgeReport
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || len(doc.Nodes) != 1 {
		t.Fatalf("-o json: %v\n%s", err, res.Stdout)
	}
	plans := map[string]bool{}
	for _, s := range doc.Nodes[0].Preflight.Surge {
		plans[s.Owner.Name] = s.CanSurge
		if s.Owner.Name == "web" && (s.MaxSurge != 1 || !s.WithSurge || !strings.Contains(s.Plan, "kubectl.kubernetes.io/restartedAt")) {
			t.Errorf("web's plan: %+v", s)
		}
		if s.Owner.Name == "batch" && !strings.Contains(s.Plan, "Recreate") {
			t.Errorf("batch's plan does not say Recreate: %s", s.Plan)
		}
	}
	if !plans["web"] || plans["batch"] || len(plans) != 2 {
		t.Fatalf("surge plans (name: can surge) %v, want web true and batch false", plans)
	}

	w := watchSlices(t, f, "web")
	res = f.drain(a, "--surge", "--timeout", "120s")
	lowest := w.Lowest()
	expect(t, res, 0, "surge: Deployment "+f.ns+"/web restarted and rolled out",
		"Service web: Ready endpoints never reached zero", "node "+a+" drained",
		"surge: Deployment "+f.ns+"/web rolled out in ")
	// A progress line as it ends, the record once, in the summary.
	if n := strings.Count(res.Stdout, "restarted and rolled out"); n != 1 {
		t.Errorf("the surge record line is printed %d times, want once", n)
	}
	if lowest < 1 {
		t.Errorf("the Service's Ready endpoints reached %d during the --surge drain", lowest)
	}
	// The rollout's controller removed the old pod: that is the drain's
	// own doing, never "another client".
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.Contains(l, "│ "+f.ns+"/"+old[0].Name+" ") && !strings.Contains(l, "replaced by --surge's rollout") {
			t.Errorf("the old pod's row does not name the rollout: %s", l)
		}
	}
	if strings.Contains(res.Stdout, "deleted by another client") {
		t.Errorf("a pod counted as deleted by another client:\n%s", res.Stdout)
	}
	if _, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, old[0].Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the old pod %s is still there (err %v)", old[0].Name, err)
	}
	if left := f.pods("", onNode(a)); len(left) != 0 {
		t.Errorf("%d pod(s) left on %s", len(left), a)
	}
	f.waitPods("app=web", 1, func(p *corev1.Pod) bool { return p.Spec.NodeName == b && isReady(p) })
	d, err := f.env.Client.AppsV1().Deployments(f.ns).Get(f.ctx, "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
		t.Errorf("web's template has no restartedAt annotation (err %v)", err)
	}
}

// TestDrainSurgeWatch: under --watch the surge line (Ready endpoints never
// at zero) is among the watch's lines, and the node is drained.
func TestDrainSurgeWatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	f.placeOn([]string{b}, func() { f.deploy("web", "web", 1, sel, nil) })
	f.service("web", 1)
	res := f.drain(a, "--surge", "--watch", "--timeout", "120s")
	out := res.Stdout + res.Stderr
	if res.ExitCode == 1 || !strings.Contains(out, "surge: Deployment "+f.ns+"/web restarted and rolled out") ||
		!strings.Contains(out, "Service web: Ready endpoints never reached zero") || !strings.Contains(out, "node "+a+" drained") {
		t.Errorf("drain --surge --watch: exit %d, want the surge line and the node drained", res.ExitCode)
	}
}
