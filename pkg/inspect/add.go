package inspect

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// Add files one object into the inventory: typed workloads (Deployment,
// StatefulSet, DaemonSet, ReplicaSet, Pod, Job, CronJob), Services, PDBs,
// HPAs, Ingresses and IngressClasses, and unstructured custom resources of the kinds the
// checks read (CustomResources, and CustomResourceDefinitions, for which
// kinds have a scale subresource).
// Objects managed by another workload (a ReplicaSet owned by a
// Deployment, a pod with a controller, a Job owned by a CronJob) are
// counted but not audited, so each workload is reported once, through its
// owner. It returns false for kinds the audit does not read.
func (inv *Inventory) Add(obj runtime.Object, src *Source) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return inv.addLoadBalancerObject(u) || inv.addScalingObject(u, src) || inv.addCustomResourceDefinition(u)
	}
	inv.Objects++
	switch o := obj.(type) {
	case *appsv1.Deployment:
		inv.addWorkload(o.ObjectMeta, "Deployment", src, o.Spec.Template, replicas(o.Spec.Replicas), func(w *Workload) {
			s := o.Spec.Strategy
			w.Strategy = &s
			w.MinReadySeconds = o.Spec.MinReadySeconds
		})
	case *appsv1.StatefulSet:
		inv.addWorkload(o.ObjectMeta, "StatefulSet", src, o.Spec.Template, replicas(o.Spec.Replicas), func(w *Workload) {
			w.MinReadySeconds = o.Spec.MinReadySeconds
		})
	case *appsv1.DaemonSet:
		inv.addWorkload(o.ObjectMeta, "DaemonSet", src, o.Spec.Template, nil, func(w *Workload) {
			w.MinReadySeconds = o.Spec.MinReadySeconds
		})
	case *appsv1.ReplicaSet:
		if !inv.controlled(o.ObjectMeta, "ReplicaSet", "apps/Deployment") {
			inv.addWorkload(o.ObjectMeta, "ReplicaSet", src, o.Spec.Template, replicas(o.Spec.Replicas), func(w *Workload) {
				w.MinReadySeconds = o.Spec.MinReadySeconds
			})
		}
	case *corev1.Pod:
		if !inv.controlled(o.ObjectMeta, "Pod", "apps/ReplicaSet", "apps/StatefulSet", "apps/DaemonSet", "batch/Job", "/Node") {
			one := int32(1)
			tpl := corev1.PodTemplateSpec{ObjectMeta: o.ObjectMeta, Spec: o.Spec}
			inv.addWorkload(o.ObjectMeta, "Pod", src, tpl, &one, nil)
		}
		if inv.Live {
			inv.AddPodLabels(o.Namespace, o.Labels, metav1.GetControllerOf(o))
		}
	case *batchv1.Job:
		if !inv.controlled(o.ObjectMeta, "Job", "batch/CronJob") {
			inv.addWorkload(o.ObjectMeta, "Job", src, o.Spec.Template, nil, func(w *Workload) { w.Batch = true })
		}
	case *batchv1.CronJob:
		inv.addWorkload(o.ObjectMeta, "CronJob", src, o.Spec.JobTemplate.Spec.Template, nil, func(w *Workload) { w.Batch = true })
	case *corev1.Service:
		inv.Services = append(inv.Services, *o)
	case *policyv1.PodDisruptionBudget:
		inv.PDBs = append(inv.PDBs, PDB{PodDisruptionBudget: *o, Source: src})
	case *autoscalingv2.HorizontalPodAutoscaler:
		inv.HPAs = append(inv.HPAs, HPA{Kind: kindHPA, Namespace: o.Namespace, Name: o.Name,
			TargetKind: o.Spec.ScaleTargetRef.Kind, TargetName: o.Spec.ScaleTargetRef.Name, MinReplicas: *replicas(o.Spec.MinReplicas)})
	case *autoscalingv1.HorizontalPodAutoscaler:
		inv.HPAs = append(inv.HPAs, HPA{Kind: kindHPA, Namespace: o.Namespace, Name: o.Name,
			TargetKind: o.Spec.ScaleTargetRef.Kind, TargetName: o.Spec.ScaleTargetRef.Name, MinReplicas: *replicas(o.Spec.MinReplicas)})
	case *networkingv1.Ingress:
		inv.Ingresses = append(inv.Ingresses, *o)
	case *networkingv1.IngressClass:
		inv.IngressClasses = append(inv.IngressClasses, *o)
	default:
		inv.Objects--
		return false
	}
	return true
}

// addBackendConfig records a GKE BackendConfig's connection draining timeout
// (spec.connectionDraining.drainingTimeoutSec, seconds).
func (inv *Inventory) addBackendConfig(namespace, name string, drainingTimeoutSec int64) {
	if inv.BackendConfigs == nil {
		inv.BackendConfigs = map[string]int64{}
	}
	inv.BackendConfigs[namespace+"/"+name] = drainingTimeoutSec
	inv.Objects++
}

func (inv *Inventory) addWorkload(meta metav1.ObjectMeta, kind string, src *Source, tpl corev1.PodTemplateSpec, r *int32, more func(*Workload)) {
	w := &Workload{
		Object:      ObjectRef{Kind: kind, Namespace: namespaceOf(meta.Namespace), Name: meta.Name},
		Source:      src,
		Annotations: meta.Annotations,
		Template:    tpl,
		Replicas:    r,
	}
	if more != nil {
		more(w)
	}
	inv.Workloads = append(inv.Workloads, w)
}

// namespaceOf returns "default" for objects without a namespace, as the API
// server (and kubectl apply without -n) would place them.
func namespaceOf(ns string) string {
	return cmp.Or(ns, "default")
}

// replicas applies the API default (1) to a replica count (or an HPA's
// minReplicas).
func replicas(r *int32) *int32 {
	return new(ptr.Deref(r, 1))
}

// controlled reports whether the object has a controller, so that it is
// reported through that controller instead. readBy lists the controllers
// ("group/Kind"; "" is the core group) whose objects the audit reads; an
// object controlled by any other (an Argo Rollout's ReplicaSet, a pod of an
// OpenKruise CloneSet) is counted as not audited with the controller's
// kind, so that it is never skipped silently (the summary line says so).
// Mirror pods are controlled by their Node: they are static pods, not
// something a rollout or a drain moves.
func (inv *Inventory) controlled(meta metav1.ObjectMeta, kind string, readBy ...string) bool {
	c := metav1.GetControllerOf(&meta)
	if c == nil {
		return false
	}
	gv, _ := schema.ParseGroupVersion(c.APIVersion)
	if slices.Contains(readBy, gv.Group+"/"+c.Kind) {
		return true
	}
	inv.AddNotAudited(NotAuditedUnreadController, fmt.Sprintf("%s controlled by %s (%s), a controller the audit does not read: audit it by name (kubectl graceful audit %s/NAME) or from its manifests",
		kind, c.Kind, c.APIVersion, strings.ToLower(c.Kind)))
	return true
}
