package inspect

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// servicesFor returns the Services in w's namespace that route to its pods:
// a non-empty selector whose pairs all match the pod template's labels
// (the EndpointSlice controller's rule), and that carry client traffic (see
// carriesTraffic). ExternalName Services select nothing. Jobs and CronJobs
// are never behind a Service here.
func (s *scope) servicesFor(w *Workload) []corev1.Service {
	if w.Batch {
		return nil
	}
	if svcs, ok := s.services[w]; ok {
		return svcs
	}
	if s.services == nil {
		s.services = map[*Workload][]corev1.Service{}
	}
	var svcs []corev1.Service
	for _, i := range s.index().services[w.Object.Namespace] {
		svc := s.inv.Services[i]
		if len(svc.Spec.Selector) > 0 && carriesTraffic(svc) && labels.Set(svc.Spec.Selector).AsSelectorPreValidated().Matches(labels.Set(w.Template.Labels)) {
			svcs = append(svcs, svc)
		}
	}
	s.services[w] = svcs
	return svcs
}

// carriesTraffic reports whether svc sends clients to its pods in a way
// that readiness and endpoint removal gate. A ClusterIP or load balancer
// Service does, through kube-proxy. A headless Service (clusterIP: None)
// does too when it has client ports: clients resolve it in DNS and dial pod
// IPs, and DNS lists only ready pods and drops terminating ones, so the
// same race applies (a gRPC client balancing over a headless Service is the
// common case). A headless Service without ports (a StatefulSet's pod
// names only) or with publishNotReadyAddresses (peer discovery: DNS lists
// every pod, ready or not) does not; nor does a metrics-only Service or an
// ExternalName Service.
func carriesTraffic(svc corev1.Service) bool {
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName, metricsOnly(svc):
		return false
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return len(svc.Spec.Ports) > 0 && !svc.Spec.PublishNotReadyAddresses
	}
	return true
}

// metricsOnly reports whether every port of svc is a metrics port (its
// name or its named targetPort says "metrics", or the Service's name ends
// in -metrics): such a Service is scraped by Prometheus, it does not carry
// user traffic, so a scrape missed while a pod terminates is no dropped
// request. Without this, controllers exposing only metrics (Argo CD's
// application and notifications controllers) were reported as serving
// traffic.
func metricsOnly(svc corev1.Service) bool {
	if len(svc.Spec.Ports) == 0 {
		return false
	}
	if strings.HasSuffix(svc.Name, "-metrics") {
		return true
	}
	return !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool {
		return !strings.Contains(p.Name, "metrics") && !strings.Contains(p.TargetPort.StrVal, "metrics")
	})
}

// servingContainers returns the containers of w that the Services send
// traffic to: those declaring a port some Service targets (by number or
// name). When no declared port matches (ports need not be declared), every
// container is assumed to serve.
func servingContainers(w *Workload, svcs []corev1.Service) []corev1.Container {
	var out []corev1.Container
	for _, c := range w.Template.Spec.Containers {
		if servesAny(c, svcs) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return w.Template.Spec.Containers
	}
	return out
}

func servesAny(c corev1.Container, svcs []corev1.Service) bool {
	for _, svc := range svcs {
		for _, sp := range svc.Spec.Ports {
			target := sp.TargetPort
			if target.Type == intstr.Int && target.IntVal == 0 && target.StrVal == "" {
				target = intstr.FromInt32(sp.Port) // targetPort defaults to port
			}
			for _, cp := range c.Ports {
				if (target.Type == intstr.String && target.StrVal == cp.Name) ||
					(target.Type == intstr.Int && target.IntVal == cp.ContainerPort) {
					return true
				}
			}
		}
	}
	return false
}

// pdbSelector returns the PDB's selector as the disruption controller reads
// it (metav1.LabelSelectorAsSelector): a nil selector matches nothing, an
// empty one every pod in the namespace (policy/v1), except for a
// policy/v1beta1 PDB where an empty selector matches nothing.
func pdbSelector(p PDB) labels.Selector {
	if p.LegacyEmptySelector {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// pdbsFor returns the PDBs in w's namespace whose selector matches its pod
// template labels.
func (s *scope) pdbsFor(w *Workload) []PDB {
	var out []PDB
	x := s.index()
	for _, i := range x.pdbs[w.Object.Namespace] {
		if x.pdbSel[i].Matches(labels.Set(w.Template.Labels)) {
			out = append(out, s.inv.PDBs[i])
		}
	}
	return out
}

// workloadsFor returns the workloads a PDB selects (template labels).
func (s *scope) workloadsFor(p PDB) []*Workload {
	sel := pdbSelector(p)
	return slices.DeleteFunc(slices.Clone(s.index().workloads[namespaceOf(p.Namespace)]), func(w *Workload) bool {
		return w.Batch || !sel.Matches(labels.Set(w.Template.Labels))
	})
}

func pdbRef(p PDB) ObjectRef {
	return ObjectRef{Kind: "PodDisruptionBudget", Namespace: namespaceOf(p.Namespace), Name: p.Name}
}

// hpaFor returns the HPA whose scaleTargetRef names w, or nil.
//
// A KEDA ScaledObject wins over the HPA it makes. An HPA does not scale a
// workload at replicas 0 (the HPA controller disables scaling while the
// target's replicas are 0, pkg/controller/podautoscaler): it is not
// returned then; KEDA scales from 0 itself.
func (s *scope) hpaFor(w *Workload) *HPA {
	var found *HPA
	for _, i := range s.index().hpas[w.Object.Namespace] {
		h := &s.inv.HPAs[i]
		if h.TargetKind != w.Object.Kind || h.TargetName != w.Object.Name {
			continue
		}
		if h.Kind == kindScaledObject {
			return h
		}
		if found == nil && !atZero(w) {
			found = h
		}
	}
	return found
}

func atZero(w *Workload) bool { return w.Replicas != nil && *w.Replicas == 0 }

// floorReplicas returns the fewest replicas w may run with: the HPA's
// minReplicas when an HPA scales it, a ScaledObject's minReplicaCount
// (1 for 0: a budget matters only while pods run), else its replicas. ok
// is false for kinds without replicas (DaemonSet, Job, CronJob).
func (s *scope) floorReplicas(w *Workload) (n int32, ok bool) {
	if w.Replicas == nil {
		return 0, false
	}
	if h := s.hpaFor(w); h != nil {
		if h.Kind == kindScaledObject {
			return max(h.MinReplicas, 1), true
		}
		return h.MinReplicas, true
	}
	return *w.Replicas, true
}

// hasPreStop reports whether c has a preStop hook of any kind.
func hasPreStop(c corev1.Container) bool {
	return c.Lifecycle != nil && c.Lifecycle.PreStop != nil
}
