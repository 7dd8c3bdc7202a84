package rollout

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/kubectl/pkg/scheme"
)

// Action is what Follow does to start a rollout.
type Action int

const (
	// Wait only watches: someone else's rollout, scale-down or
	// drain.
	Wait Action = iota
	// Restart does what `kubectl rollout restart` does: it sets the
	// kubectl.kubernetes.io/restartedAt annotation of the pod template
	// (polymorphichelpers.ObjectRestarterFn) with a strategic merge patch.
	Restart
	// Scale sets spec.replicas through the scale subresource.
	Scale
)

// restartPatch returns the strategic merge patch `kubectl rollout restart`
// sends for obj: the difference between the object and the object with
// kubectl's restartedAt annotation (kubectl's set.CalculatePatches).
// Errors: a paused Deployment, a kind kubectl cannot restart.
func restartPatch(obj runtime.Object) ([]byte, error) {
	codec := scheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion)
	orig := obj.DeepCopyObject()
	before, err := runtime.Encode(codec, orig)
	if err != nil {
		return nil, err
	}
	after, err := polymorphichelpers.ObjectRestarterFn(obj.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(before, after, orig)
}

// restart sends the restart patch and returns the workload's new
// generation.
func restart(ctx context.Context, c kubernetes.Interface, w Workload, patch []byte) (int64, error) {
	apps, opts := c.AppsV1(), metav1.PatchOptions{}
	var got metav1.Object
	var err error
	switch w.Kind {
	case kindDeployment:
		got, err = apps.Deployments(w.Namespace).Patch(ctx, w.Name, types.StrategicMergePatchType, patch, opts)
	case kindStatefulSet:
		got, err = apps.StatefulSets(w.Namespace).Patch(ctx, w.Name, types.StrategicMergePatchType, patch, opts)
	case kindDaemonSet:
		got, err = apps.DaemonSets(w.Namespace).Patch(ctx, w.Name, types.StrategicMergePatchType, patch, opts)
	default:
		return 0, CheckKind(w.Kind)
	}
	if err != nil {
		return 0, fmt.Errorf("restarting %s: %w", w, err)
	}
	return got.GetGeneration(), nil
}

// scaleTo sets the replicas through the scale subresource (the Scale
// object carries no generation: the caller reads the workload again).
// DaemonSets have no scale subresource.
func scaleTo(ctx context.Context, c kubernetes.Interface, w Workload, replicas int32) error {
	var api interface {
		GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error)
		UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error)
	}
	switch w.Kind {
	case kindDeployment:
		api = c.AppsV1().Deployments(w.Namespace)
	case kindStatefulSet:
		api = c.AppsV1().StatefulSets(w.Namespace)
	default:
		return fmt.Errorf("%s has no scale subresource: --scale works on deployments and statefulsets", w)
	}
	sc, err := api.GetScale(ctx, w.Name, metav1.GetOptions{})
	if err == nil {
		sc.Spec.Replicas = replicas
		_, err = api.UpdateScale(ctx, w.Name, sc, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("scaling %s to %d: %w", w, replicas, err)
	}
	return nil
}
