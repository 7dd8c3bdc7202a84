package inspect

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rollouts and replicas. Facts (pkg/controller/deployment/util
// ResolveFenceposts): maxSurge percentages round up, maxUnavailable
// percentages round down, and when both resolve to 0 maxUnavailable becomes
// 1. The defaults are RollingUpdate with 25% and 25%.

var singleReplica = register(&Check{
	ID:       "single-replica",
	Field:    "spec.replicas",
	Topic:    TopicRollouts,
	Severity: SeverityWarning,
	Summary:  "behind a Service with 1 replica (and no HPA raising it): every rollout or drain is downtime",
	Needs:    []Input{InputServices, InputHPAs},
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		svcs := s.servicesFor(w)
		n, ok := s.floorReplicas(w)
		if len(svcs) == 0 || !ok || n != 1 {
			return "", ""
		}
		msg := fmt.Sprintf("1 replica%s behind Service %s: while it restarts, is evicted or rescheduled, nothing serves", s.floorSource(w), svcs[0].Name)
		fix := fmt.Sprintf("kubectl scale %s %s -n %s --replicas=2", lowerKind(w), w.Object.Name, w.Object.Namespace)
		if w.Object.Kind == "Pod" {
			fix = "run it as a Deployment with 2 or more replicas"
		} else if h := s.hpaFor(w); h != nil && h.Kind == kindScaledObject {
			fix = fmt.Sprintf(`kubectl patch scaledobject %s -n %s --type=merge -p '{"spec":{"minReplicaCount":2}}'`, h.Name, w.Object.Namespace)
		} else if h != nil {
			fix = fmt.Sprintf(`kubectl patch hpa %s -n %s -p '{"spec":{"minReplicas":2}}'`, h.Name, w.Object.Namespace)
		}
		return msg, fix
	}),
	Explanation: Explanation{
		Why:    "With one replica behind a Service, every rollout (with maxSurge 0), eviction, node drain or crash leaves the Service with no ready endpoint.",
		Fix:    "Run at least 2 replicas (or an HPA with minReplicas >= 2), with a PDB.",
		Source: srcDeployment,
	},
})

var rolloutDowntime = register(&Check{
	ID:       "rollout-downtime",
	Field:    "spec.strategy",
	Topic:    TopicRollouts,
	Severity: SeverityError,
	Summary:  "Deployment strategy allows zero ready pods during a rollout: Recreate behind a Service, or maxUnavailable resolving to all replicas",
	Needs:    []Input{InputServices, InputHPAs},
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		if w.Strategy == nil {
			return "", "" // not a Deployment
		}
		return s.rolloutDowntime(w)
	}),
	Explanation: Explanation{
		Why:    "Strategy Recreate stops all pods before starting new ones; a RollingUpdate whose maxUnavailable resolves (rounding down) to all replicas may do the same. Either way the Service has no ready endpoint during the rollout.",
		Fix:    "Use RollingUpdate with maxUnavailable: 0 and maxSurge: 1 (or percentages that keep at least one pod).",
		Source: srcDeployment,
	},
})

// rolloutDowntime says how a Deployment's strategy leaves its Services no
// ready pod during a rollout, or returns "".
func (s *scope) rolloutDowntime(w *Workload) (msg, fix string) {
	rollingFix := fmt.Sprintf(`kubectl patch deployment %s -n %s -p '{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":1}}}}'`,
		w.Object.Name, w.Object.Namespace)
	if w.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if svcs := s.servicesFor(w); len(svcs) > 0 {
			return fmt.Sprintf("strategy Recreate behind Service %s: every rollout stops all pods before starting new ones", svcs[0].Name), rollingFix
		}
		return "", ""
	}
	n, _ := s.floorReplicas(w)
	if n <= 0 {
		return "", ""
	}
	surge, unavailable := resolveFenceposts(w.Strategy.RollingUpdate, n)
	if unavailable < n {
		return "", ""
	}
	return fmt.Sprintf("maxUnavailable resolves to %d of %d replicas%s (maxSurge %d): a rollout may take every pod down at once",
		unavailable, n, s.floorSource(w), surge), rollingFix
}

// resolveFenceposts mirrors the Deployment controller's ResolveFenceposts
// with the API defaults (25%/25%) for unset fields.
func resolveFenceposts(ru *appsv1.RollingUpdateDeployment, replicas int32) (surge, unavailable int32) {
	def := intstr.FromString("25%")
	ms, mu := &def, &def
	if ru != nil {
		if ru.MaxSurge != nil {
			ms = ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			mu = ru.MaxUnavailable
		}
	}
	s, err1 := intstr.GetScaledValueFromIntOrPercent(ms, int(replicas), true)
	u, err2 := intstr.GetScaledValueFromIntOrPercent(mu, int(replicas), false)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u)
}

var minReadySecondsZero = register(&Check{
	ID:       "min-ready-seconds-zero",
	Field:    "spec.minReadySeconds",
	Topic:    TopicRollouts,
	Severity: SeverityInfo,
	Summary:  "behind a Service with readiness probes but minReadySeconds 0: a rollout moves on at the first Ready, before the pod proved stable",
	Needs:    []Input{InputServices},
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		svcs := s.servicesFor(w)
		if !slices.Contains([]string{"Deployment", "StatefulSet", "DaemonSet"}, w.Object.Kind) || len(svcs) == 0 || w.MinReadySeconds != 0 {
			return "", ""
		}
		for _, c := range servingContainers(w, svcs) {
			if c.ReadinessProbe == nil {
				return "", "" // missing-readiness-probe is the finding then
			}
		}
		return "minReadySeconds is 0: the rollout replaces the next pod as soon as a new one first turns Ready",
			fmt.Sprintf(`kubectl patch %s %s -n %s -p '{"spec":{"minReadySeconds":10}}'`, lowerKind(w), w.Object.Name, w.Object.Namespace)
	}),
	Explanation: Explanation{
		Why:    "With minReadySeconds 0 a rollout replaces the next old pod as soon as a new one first reports Ready, even if it crashes a second later; a short minReadySeconds lets new pods prove they stay Ready.",
		Fix:    "Set spec.minReadySeconds to a few seconds (e.g. 10).",
		Source: srcDeployment,
	},
})

// lowerKind names w's kind as kubectl commands do, for the apps/v1 kinds.
func lowerKind(w *Workload) string {
	if slices.Contains([]string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}, w.Object.Kind) {
		return strings.ToLower(w.Object.Kind)
	}
	return w.Object.Kind
}
