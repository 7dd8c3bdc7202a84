package rollout

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/utils/ptr"
)

// workloadState is what the follower reads from the workload object: its
// pod selector, its pod template's labels (what Services and budgets
// select), the desired number of pods, and its generation.
type workloadState struct {
	obj        runtime.Object
	selector   labels.Selector
	template   labels.Set
	desired    int32
	generation int64
}

// The workload kinds `watch` follows: the apps/v1 kinds that own pods
// through a pod template and report rollout status (the kinds
// k8s.io/kubectl/pkg/polymorphichelpers has a StatusViewer for).
const (
	kindDeployment  = "Deployment"
	kindStatefulSet = "StatefulSet"
	kindDaemonSet   = "DaemonSet"
)

// CheckKind returns an error unless kind is one `watch` can follow:
// a kind with a pod template and a rollout status (Deployment, StatefulSet,
// DaemonSet).
func CheckKind(kind string) error {
	switch kind {
	case kindDeployment, kindStatefulSet, kindDaemonSet:
		return nil
	}
	return fmt.Errorf("%s has no pod template with a rollout to follow: use a deployment, statefulset or daemonset", kind)
}

// getWorkload reads the workload; a missing one is the API's NotFound,
// wrapped (apierrors.IsNotFound tells it).
func getWorkload(ctx context.Context, c kubernetes.Interface, w Workload) (runtime.Object, error) {
	var obj runtime.Object
	var err error
	apps := c.AppsV1()
	switch w.Kind {
	case kindDeployment:
		obj, err = apps.Deployments(w.Namespace).Get(ctx, w.Name, metav1.GetOptions{})
	case kindStatefulSet:
		obj, err = apps.StatefulSets(w.Namespace).Get(ctx, w.Name, metav1.GetOptions{})
	case kindDaemonSet:
		obj, err = apps.DaemonSets(w.Namespace).Get(ctx, w.Name, metav1.GetOptions{})
	default:
		return nil, CheckKind(w.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s in namespace %s: %w", w, w.Namespace, err)
	}
	return obj, nil
}

// stateOf reads a workload object. Desired pods are spec.replicas (nil
// means 1, the API default) for Deployments and StatefulSets, and
// status.desiredNumberScheduled (one a matching node) for DaemonSets.
func stateOf(obj runtime.Object) (workloadState, error) {
	var sel *metav1.LabelSelector
	var tmpl *corev1.PodTemplateSpec
	st := workloadState{obj: obj}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		sel, tmpl, st.desired, st.generation = o.Spec.Selector, &o.Spec.Template, ptr.Deref(o.Spec.Replicas, 1), o.Generation
	case *appsv1.StatefulSet:
		sel, tmpl, st.desired, st.generation = o.Spec.Selector, &o.Spec.Template, ptr.Deref(o.Spec.Replicas, 1), o.Generation
	case *appsv1.DaemonSet:
		sel, tmpl, st.desired, st.generation = o.Spec.Selector, &o.Spec.Template, o.Status.DesiredNumberScheduled, o.Generation
	default:
		return st, fmt.Errorf("unexpected workload object %T", obj)
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return st, fmt.Errorf("the workload's selector: %w", err)
	}
	if s.Empty() {
		return st, fmt.Errorf("the workload has an empty selector: it would select every pod of the namespace")
	}
	st.selector, st.template = s, labels.Set(tmpl.Labels)
	return st, nil
}

// rolloutStatus asks kubectl's own StatusViewer for kind, obj's (the code of
// `kubectl rollout status`): its message, whether the rollout is done, and
// an error when it will not finish (a Deployment past its progress
// deadline) or the kind's strategy has no rollout status (OnDelete, done is
// then true).
func rolloutStatus(obj runtime.Object, kind string) (string, bool, error) {
	viewer, err := polymorphichelpers.StatusViewerFor(appsv1.SchemeGroupVersion.WithKind(kind).GroupKind())
	if err != nil {
		return "", false, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "", false, err
	}
	msg, done, err := viewer.Status(&unstructured.Unstructured{Object: m}, 0)
	return strings.TrimSpace(msg), done, err
}
