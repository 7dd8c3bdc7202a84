package inspect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingressspec"
)

// The AWS load balancer forms that lb-deregistration-exceeds-grace reads;
// docs/audit.md ("Load balancer forms") lists them with their sources:
// the AWS Load Balancer Controller's Service and Ingress annotations and
// TargetGroupBinding, and the Kubernetes AWS cloud provider's (in-tree)
// Service annotations.
const (
	awsLBType                = "service.beta.kubernetes.io/aws-load-balancer-type"
	awsNLBTargetType         = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
	nlbTargetGroupAttributes = "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes"
	awsAnnotationPrefix      = "service.beta.kubernetes.io/aws-load-balancer-"
	clbDrainingEnabled       = "service.beta.kubernetes.io/aws-load-balancer-connection-draining-enabled"
	clbDrainingTimeout       = "service.beta.kubernetes.io/aws-load-balancer-connection-draining-timeout"
	// awsNLBClass is the AWS Load Balancer Controller's loadBalancerClass.
	awsNLBClass = "service.k8s.aws/nlb"

	albPrefix                = "alb.ingress.kubernetes.io/"
	albTargetGroupAttributes = albPrefix + "target-group-attributes"
	albTargetType            = albPrefix + "target-type"
	albGroupName             = albPrefix + "group.name"
	albActionPrefix          = albPrefix + "actions."
)

// serviceLBDelays reads the load balancer a LoadBalancer Service gets on
// AWS from its own spec and annotations.
func serviceLBDelays(svc corev1.Service) []lbDelay {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	typ := svc.Annotations[awsLBType]
	class := ptr.Deref(svc.Spec.LoadBalancerClass, "")
	switch {
	case class == awsNLBClass || typ == "external" || typ == "nlb-ip":
		targets := targetsNodes // the controller's default target type
		if typ == "nlb-ip" || svc.Annotations[awsNLBTargetType] == targetsPods {
			targets = targetsPods
		}
		return []lbDelay{targetGroup(svc.Annotations[nlbTargetGroupAttributes], "AWS NLB", "AWS Load Balancer Controller", targets, nlbTargetGroupAttributes)}
	case class != "":
		return nil // another controller's class: not an AWS form we know
	case typ == "nlb":
		// The in-tree cloud provider registers nodes and sets no target
		// group attributes: the AWS default applies.
		return []lbDelay{{awsDefaultDeregistrationDelay, "AWS NLB target group (in-tree cloud provider, instance targets, AWS default)",
			targetsNodes, "the in-tree provider cannot set it: move to the AWS Load Balancer Controller and set " + nlbTargetGroupAttributes}}
	case hasKeyPrefix(svc.Annotations, awsAnnotationPrefix):
		return classicELB(svc)
	}
	return nil
}

// targetGroup reads deregistration_delay.timeout_seconds from a
// target-group-attributes annotation, or takes the AWS default. name is the
// load balancer and where is what it was found through.
func targetGroup(attrs, name, where, targets, annotation string) lbDelay {
	fix := annotation + ": deregistration_delay.timeout_seconds=N"
	from := fmt.Sprintf("%s target group (%s, %s targets", name, where, targets)
	if v, ok := targetGroupDelay(attrs); ok {
		return lbDelay{v, from + ")", targets, fix}
	}
	return lbDelay{awsDefaultDeregistrationDelay, from + ", AWS default: no deregistration_delay.timeout_seconds)", targets, fix}
}

// classicELB is the in-tree cloud provider's default for a LoadBalancer
// Service on AWS: a Classic ELB in front of the nodes, whose connection
// draining is off unless annotated (AWS default timeout 300 s when on).
func classicELB(svc corev1.Service) []lbDelay {
	if svc.Annotations[clbDrainingEnabled] != "true" {
		return nil
	}
	secs := int64(awsDefaultDeregistrationDelay)
	if n, err := strconv.ParseInt(svc.Annotations[clbDrainingTimeout], 10, 64); err == nil {
		secs = n
	}
	return []lbDelay{{secs, "AWS Classic ELB connection draining (in-tree cloud provider, instance targets)", targetsNodes, clbDrainingTimeout + ": N"}}
}

// targetGroupDelay reads deregistration_delay.timeout_seconds from an AWS
// target-group-attributes annotation ("k=v,k=v").
func targetGroupDelay(attrs string) (int64, bool) {
	for _, kv := range strings.Split(attrs, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && strings.TrimSpace(k) == "deregistration_delay.timeout_seconds" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// albDelays returns a target group per ALB Ingress routing to svc. The
// Service's own target-group annotations win over the Ingress's, as the
// AWS Load Balancer Controller documents.
func (s *scope) albDelays(svc corev1.Service) []lbDelay {
	var out []lbDelay
	for _, ing := range s.inv.Ingresses {
		if namespaceOf(ing.Namespace) != namespaceOf(svc.Namespace) || !isALB(ing) || !routesTo(ing, svc.Name) {
			continue
		}
		attrs, targets := ing.Annotations[albTargetGroupAttributes], ing.Annotations[albTargetType]
		if v, ok := svc.Annotations[albTargetGroupAttributes]; ok {
			attrs = v
		}
		if v, ok := svc.Annotations[albTargetType]; ok {
			targets = v
		}
		if targets != targetsPods {
			targets = targetsNodes // the controller's default target type
		}
		where := "Ingress " + ing.Name
		if g := ing.Annotations[albGroupName]; g != "" {
			where += ", group " + g
		}
		out = append(out, targetGroup(attrs, "AWS ALB", where, targets, albTargetGroupAttributes))
	}
	return out
}

// isALB reports whether the AWS Load Balancer Controller serves ing: its
// class is alb (ingressClassName or the older annotation), or it carries
// the controller's annotations (an IngressClass of another name).
func isALB(ing networkingv1.Ingress) bool {
	if c := ing.Spec.IngressClassName; c != nil && *c == "alb" {
		return true
	}
	return ing.Annotations[ingressspec.LegacyClassAnnotation] == "alb" || hasKeyPrefix(ing.Annotations, albPrefix)
}

// routesTo reports whether ing sends traffic to the Service: a default
// backend or path backend naming it, or an ALB forward action
// (alb.ingress.kubernetes.io/actions.NAME) with a target group naming it.
func routesTo(ing networkingv1.Ingress, service string) bool {
	if slices.Contains(ingressspec.BackendServices(&ing), service) {
		return true
	}
	for k, v := range ing.Annotations {
		if strings.HasPrefix(k, albActionPrefix) && actionForwardsTo(v, service) {
			return true
		}
	}
	return false
}

func actionForwardsTo(action, service string) bool {
	var a struct {
		ForwardConfig struct {
			TargetGroups []struct {
				ServiceName string `json:"serviceName"`
			} `json:"targetGroups"`
		} `json:"forwardConfig"`
	}
	if json.Unmarshal([]byte(action), &a) != nil {
		return false
	}
	for _, tg := range a.ForwardConfig.TargetGroups {
		if tg.ServiceName == service {
			return true
		}
	}
	return false
}

// targetGroupBindingDelays returns a target group per TargetGroupBinding
// bound to svc that someone created by hand: its target group is managed
// outside the cluster, so its delay cannot be read here and the AWS default
// is assumed, saying so. Bindings the controller made for its own Services
// and Ingresses are left out: their annotations are read above.
func (s *scope) targetGroupBindingDelays(svc corev1.Service) []lbDelay {
	var out []lbDelay
	for _, b := range s.inv.TargetGroupBindings {
		if b.Managed || namespaceOf(b.Namespace) != namespaceOf(svc.Namespace) || b.ServiceName != svc.Name {
			continue
		}
		targets := b.TargetType
		if targets != targetsPods && targets != targetsNodes {
			targets = ""
		}
		from := fmt.Sprintf("AWS target group of TargetGroupBinding %s (set outside the cluster; AWS default assumed)", b.Name)
		out = append(out, lbDelay{awsDefaultDeregistrationDelay, from, targets,
			"the target group's deregistration_delay.timeout_seconds, where it is created (Terraform, CloudFormation, console)"})
	}
	return out
}
