package load

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// The drainers' caps on a pod's termination as a live cluster shows them
// (docs/audit.md, shutdown-exceeds-drainer-cap).
const (
	// caMaxGraceFlag is cluster-autoscaler's cap on each pod's grace
	// period when it scales a node down; caMaxGraceDefault its default
	// (kubernetes/autoscaler cluster-autoscaler/main.go: 10*60 seconds).
	caMaxGraceFlag    = "max-graceful-termination-sec"
	caMaxGraceDefault = 600
	// awsSpotNotice is the time from an EC2 spot interruption notice to
	// the instance's reclaim (AWS EC2 User Guide, "Spot Instance
	// interruption notices": two minutes); gcpSpotNotice is Compute
	// Engine's, from a Spot or preemptible VM's preemption notice to its
	// stop (GKE docs, "Preemptible VMs" and "Spot VMs": 30 s by default);
	// azureSpotNotice Azure's Preempt Scheduled Event (Azure Metadata
	// Service, "Scheduled Events": at least 30 s).
	awsSpotNotice   = 120
	gcpSpotNotice   = 30
	azureSpotNotice = 30
)

// nodePoolsGVR is Karpenter's NodePool (karpenter.sh/v1).
var nodePoolsGVR = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}

// spotLabel is a node label whose value marks a spot node, and whose
// notice it gets.
type spotLabel struct {
	key, value, cloud string
	seconds           int64
}

// spotLabels are the labels each provisioner puts on its spot nodes: EKS
// managed node groups, GKE, AKS and Karpenter (whose cloud is told from
// the node's other labels, AWS when none says).
var spotLabels = []spotLabel{
	{"eks.amazonaws.com/capacityType", "SPOT", "AWS EC2", awsSpotNotice},
	{"cloud.google.com/gke-spot", "true", "Compute Engine", gcpSpotNotice},
	{"cloud.google.com/gke-preemptible", "true", "Compute Engine", gcpSpotNotice},
	{"kubernetes.azure.com/scalesetpriority", "spot", "Azure", azureSpotNotice},
	{"karpenter.sh/capacity-type", "spot", "", 0},
}

// autoscalerCaps finds cluster-autoscaler's Deployment among the workloads
// read, else in one list of every namespace's Deployments (its namespace
// and name are the installer's: kube-system/cluster-autoscaler by
// default, a Helm release's own), by its container's image or command.
func (l *lister) autoscalerCaps() []inspect.DrainerCap {
	for _, w := range l.inv.Workloads {
		if w.Object.Kind == "Deployment" {
			if c, ok := autoscalerCap(w.Object.Namespace, w.Object.Name, w.Template.Spec); ok {
				return []inspect.DrainerCap{c}
			}
		}
	}
	if l.everyDeployment {
		return nil
	}
	list, err := l.cs.AppsV1().Deployments(metav1.NamespaceAll).List(l.ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	for _, d := range list.Items {
		if c, ok := autoscalerCap(d.Namespace, d.Name, d.Spec.Template.Spec); ok {
			return []inspect.DrainerCap{c}
		}
	}
	return nil
}

// autoscalerCap reads the cap from a Deployment's pod spec when one of its
// containers runs cluster-autoscaler: the flag's value (--flag=N or
// --flag N, one dash or two), else its default.
func autoscalerCap(namespace, name string, spec corev1.PodSpec) (inspect.DrainerCap, bool) {
	for _, c := range spec.Containers {
		args := slices.Concat(c.Command, c.Args)
		if !strings.Contains(c.Image, "cluster-autoscaler") && !slices.ContainsFunc(args, func(a string) bool { return strings.HasSuffix(a, "cluster-autoscaler") }) {
			continue
		}
		where := "cluster-autoscaler's --" + caMaxGraceFlag + " (Deployment " + namespace + "/" + name + ")"
		for i, a := range args {
			flag, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if flag != caMaxGraceFlag || a == flag {
				continue
			}
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if s, err := strconv.ParseInt(value, 10, 64); err == nil && s >= 0 {
				return inspect.DrainerCap{Seconds: s, Name: where}, true
			}
		}
		return inspect.DrainerCap{Seconds: caMaxGraceDefault, Name: where + ", its default"}, true
	}
	return inspect.DrainerCap{}, false
}

// nodePoolCaps reads each Karpenter NodePool's
// spec.template.spec.terminationGracePeriod, where karpenter.sh/v1 is
// served: after it, Karpenter deletes the pods left on a draining node.
func (l *lister) nodePoolCaps(cfg *rest.Config) []inspect.DrainerCap {
	if _, err := l.cs.Discovery().ServerResourcesForGroupVersion(nodePoolsGVR.GroupVersion().String()); err != nil {
		return nil
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil
	}
	list, err := dc.Resource(nodePoolsGVR).List(l.ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []inspect.DrainerCap
	for _, p := range list.Items {
		tgp, _, _ := unstructured.NestedString(p.Object, "spec", "template", "spec", "terminationGracePeriod")
		if d, err := time.ParseDuration(tgp); err == nil && d >= 0 {
			out = append(out, inspect.DrainerCap{Seconds: int64(d / time.Second),
				Name: "Karpenter NodePool " + p.GetName() + "'s terminationGracePeriod " + tgp})
		}
	}
	return out
}

// spotCaps counts the spot nodes by label (one list of the nodes'
// metadata) and gives each kind found its cloud's notice.
func (l *lister) spotCaps() []inspect.DrainerCap {
	list, err := l.md.Resource(corev1.SchemeGroupVersion.WithResource("nodes")).List(l.ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	counts := map[spotLabel]int{}
	for _, n := range list.Items {
		if sl, ok := spotOf(n.Labels); ok {
			counts[sl]++
		}
	}
	var out []inspect.DrainerCap
	for k, n := range counts {
		out = append(out, inspect.DrainerCap{Seconds: k.seconds,
			Name: fmt.Sprintf("%s spot notice (%d node(s) labelled %s=%s)", k.cloud, n, k.key, k.value)})
	}
	slices.SortFunc(out, func(a, b inspect.DrainerCap) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// spotOf returns the spot label a node carries, its cloud told; false for
// a node that is not spot.
func spotOf(labels map[string]string) (spotLabel, bool) {
	for _, sl := range spotLabels {
		if !strings.EqualFold(labels[sl.key], sl.value) {
			continue
		}
		if sl.seconds == 0 { // Karpenter's: the cloud from the node's other labels
			sl.cloud, sl.seconds = "AWS EC2", awsSpotNotice
			for k := range labels {
				switch {
				case strings.HasPrefix(k, "cloud.google.com/"):
					sl.cloud, sl.seconds = "Compute Engine", gcpSpotNotice
				case strings.HasPrefix(k, "kubernetes.azure.com/"):
					sl.cloud, sl.seconds = "Azure", azureSpotNotice
				}
			}
		}
		return sl, true
	}
	return spotLabel{}, false
}
