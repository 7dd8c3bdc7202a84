package drain

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubectl/pkg/polymorphichelpers"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// SurgeResult is what --surge did for one Deployment or Argo Rollout: the
// rollout it started on the cordoned node and the Ready endpoints of its
// Services while it ran.
type SurgeResult struct {
	Namespace string `json:"namespace"`
	// Kind is Deployment or Rollout (argoproj.io), Name the workload's.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Deployment is Name for a Deployment, as before Kind and Name were
	// added; empty for a Rollout.
	Deployment string `json:"deployment,omitempty"`
	// RestartedAt is the value of the pod template's
	// kubectl.kubernetes.io/restartedAt annotation the drain set (RFC 3339).
	RestartedAt string `json:"restartedAt"`
	// RolledOut is true once the workload's status showed its rollout done
	// (a Deployment: every replica updated and available and no old one
	// left; a Rollout: Argo's phase Healthy for its new generation).
	RolledOut bool `json:"rolledOut"`
	// Services are the Ready endpoints of each Service selecting its pods
	// during the rollout, from their EndpointSlices.
	Services []ServiceEndpoints `json:"services"`
	// ServicesUnknown says why the Services could not be read, if so.
	ServicesUnknown string `json:"servicesUnknown,omitempty"`
	// DurationSeconds is the time from the patch to the end of the rollout.
	DurationSeconds float64 `json:"durationSeconds"`
	Error           string  `json:"error,omitempty"`
}

// ServiceEndpoints is the Ready endpoint count of one Service during a
// rollout --surge started.
type ServiceEndpoints struct {
	Service string `json:"service"`
	// MinReady is the lowest count of Ready endpoints its EndpointSlice
	// watch saw from before the patch to the end of the rollout; nil
	// when unknown (Unknown says why).
	MinReady *int32 `json:"minReady,omitempty"`
	// Unknown says why the count is not known throughout (the Service
	// could not be watched, or its watch had a gap), if so.
	Unknown string `json:"unknown,omitempty"`
}

// NeverZero reports whether the Service is known to have kept a Ready
// endpoint throughout.
func (s ServiceEndpoints) NeverZero() bool {
	return s.MinReady != nil && *s.MinReady > 0 && s.Unknown == ""
}

// surgeAll rolls, on node, each workload of the preflight that --surge can roll,
// one after another, before the node's evictions; it returns the results
// and false when ctx ended first.
func (d *nodeRun) surgeAll(ctx context.Context, node string, plans []preflight.SurgePlan) ([]SurgeResult, bool) {
	out := []SurgeResult{}
	for _, p := range plans {
		if !p.CanSurge {
			continue
		}
		res := d.surge(ctx, p)
		out = append(out, res)
		call2(d.Events.SurgeDone, node, res)
		if ctx.Err() != nil {
			return out, false
		}
	}
	return out, true
}

// rollable is one workload --surge restarts: a Deployment or a Rollout.
type rollable interface {
	// podLabels are the labels of its current pods, to find the Services
	// that select them.
	podLabels() map[string]string
	// restart sets the pod template's restartedAt annotation to at.
	restart(ctx context.Context, at string) error
	// waitDone waits until its controller says the rollout is done,
	// failed, or ctx ends.
	waitDone(ctx context.Context) error
}

// surge rolls one workload and follows its Services' endpoints until the
// rollout is done or failed, or ctx ends.
func (d *nodeRun) surge(ctx context.Context, p preflight.SurgePlan) (res SurgeResult) {
	res = SurgeResult{Namespace: p.Namespace, Kind: p.Owner.Kind, Name: p.Owner.Name, Services: []ServiceEndpoints{}}
	if p.Owner.Kind == "Deployment" {
		res.Deployment = p.Owner.Name
	}
	start := time.Now()
	// A named result: the deferred duration must reach what is returned.
	defer func() { res.DurationSeconds = time.Since(start).Seconds() }()
	w, err := d.rollableOf(ctx, p)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	eps := d.followEndpoints(watchCtx, p.Namespace, w.podLabels(), &res)
	res.RestartedAt = time.Now().Format(time.RFC3339)
	err = w.restart(ctx, res.RestartedAt)
	if err == nil {
		err = w.waitDone(ctx)
	}
	stopWatch()
	res.Services = eps.wait()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.RolledOut = true
	return res
}

// rollableOf reads the workload of p.
func (d *nodeRun) rollableOf(ctx context.Context, p preflight.SurgePlan) (rollable, error) {
	if p.Owner.Kind == argorollout.Kind {
		return d.readRollout(ctx, p.Namespace, p.Owner.Name)
	}
	dep, err := d.Client.AppsV1().Deployments(p.Namespace).Get(ctx, p.Owner.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the Deployment: %w", err)
	}
	return &deploymentRoll{client: d.Client, dep: dep}, nil
}

// deploymentRoll is a Deployment --surge restarts.
type deploymentRoll struct {
	client kubernetes.Interface
	dep    *appsv1.Deployment
}

func (r *deploymentRoll) podLabels() map[string]string { return r.dep.Spec.Template.Labels }

// restart sets the pod template's restartedAt annotation with the patch
// `kubectl rollout restart` sends
// (k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go).
func (r *deploymentRoll) restart(ctx context.Context, at string) error {
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, preflight.RestartedAtAnnotation, at)
	out, err := r.client.AppsV1().Deployments(r.dep.Namespace).Patch(ctx, r.dep.Name, types.StrategicMergePatchType,
		[]byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("restarting Deployment %s/%s: %w", r.dep.Namespace, r.dep.Name, err)
	}
	r.dep = out
	return nil
}

// waitDone waits, from a watch of the Deployment, until kubectl's
// rollout status says its rollout is complete
// (k8s.io/kubectl/pkg/polymorphichelpers DeploymentStatusViewer: every
// replica updated and available, no old one left), or failed (its
// progress deadline exceeded), or ctx ends.
func (r *deploymentRoll) waitDone(ctx context.Context) error {
	dep := r.dep
	lw := cache.NewFilteredListWatchFromClient(r.client.AppsV1().RESTClient(), "deployments", dep.Namespace, byName(dep.Name))
	viewer := &polymorphichelpers.DeploymentStatusViewer{}
	return untilRolledOut(ctx, "Deployment", dep.Namespace, dep.Name, dep.Generation, lw, func(d *appsv1.Deployment) (bool, error) {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return false, err
		}
		_, done, err := viewer.Status(&unstructured.Unstructured{Object: obj}, 0)
		return done, err
	})
}

// untilRolledOut follows the workload kind namespace/name through lw until
// done, given each version of it at generation or later, says its rollout
// is done or failed, or ctx ends.
func untilRolledOut[T interface{ GetGeneration() int64 }](ctx context.Context, kind, namespace, name string, generation int64,
	lw *cache.ListWatch, done func(T) (bool, error)) error {
	err := untilStream(ctx, &listwatch.Stream{Name: kind, LW: lw}, func(ev watch.Event) (bool, error) {
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("%s %s/%s was deleted during its rollout", kind, namespace, name)
		}
		o, ok := ev.Object.(T)
		if !ok || o.GetGeneration() < generation {
			return false, nil
		}
		return done(o)
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("stopped before the rollout of %s %s/%s completed", kind, namespace, name)
	}
	return err
}

// surgedPods are the keys ("namespace/pod") of the node's pods whose
// workload this drain rolled (res.Surge): its controller removes them as
// the rollout replaces them, which is no other client's doing.
func surgedPods(res *NodeResult) map[string]bool {
	out := map[string]bool{}
	if res.Preflight == nil {
		return out
	}
	type workload struct {
		namespace string
		owner     preflight.OwnerRef
	}
	rolled := map[workload]bool{}
	for _, s := range res.Surge {
		if s.RestartedAt != "" {
			rolled[workload{s.Namespace, preflight.OwnerRef{Kind: s.Kind, Name: s.Name}}] = true
		}
	}
	for _, g := range res.Preflight.Evict {
		if !rolled[workload{g.Namespace, g.Owner}] {
			continue
		}
		for _, p := range g.Pods {
			out[p.Namespace+"/"+p.Name] = true
		}
	}
	return out
}
