package argorollout

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// RestartedAtAnnotation is the pod template annotation that --surge sets,
// as `kubectl rollout restart` does for a Deployment. A new template is a
// new revision (a new ReplicaSet) that Argo brings up under its strategy.
// Argo's own restart (spec.restartAt) does not surge: it evicts the pods
// within maxUnavailable, and a single replica would go to zero.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// Surge is what a restart of a Rollout's pod template does.
type Surge struct {
	CanSurge bool
	// Replicas is spec.replicas (1 when unset).
	Replicas int32
	// MaxSurge is how many new pods may start above Replicas: the canary's
	// resolved maxSurge, or Replicas for blueGreen (a full preview).
	MaxSurge int32
	// MaxUnavailable is the resolved maxUnavailable.
	MaxUnavailable int32
	// Plan says, for a person, what the restart does, or why --surge
	// cannot use it.
	Plan string
}

// SurgePlan judges whether a restart of ro's pod template keeps a Ready
// pod throughout, by Argo's rules for its strategy.
func SurgePlan(ro *unstructured.Unstructured) Surge {
	s := Surge{Replicas: Replicas(ro)}
	spec, _, _ := unstructured.NestedMap(ro.Object, "spec")
	canary, isCanary := nestedMap(spec, "strategy", "canary")
	blueGreen, isBlueGreen := nestedMap(spec, "strategy", "blueGreen")
	unhandled := unhandled(ro)
	switch {
	case unhandled != "":
		s.Plan = "cannot surge: " + unhandled
	case degraded(ro) != "":
		s.Plan = "cannot surge: the Rollout is Degraded (" + degraded(ro) + "): Argo has not brought its current pod template " +
			"to Healthy, and a restart rolls that template again"
	case spec["paused"] == true:
		s.Plan = "cannot surge: the Rollout is paused (spec.paused), its controller would not roll it"
	case spec["workloadRef"] != nil:
		s.Plan = "cannot surge: its pod template comes from its workloadRef, not from the Rollout that --surge would patch"
	case isCanary:
		s.canary(canary)
	case isBlueGreen:
		s.blueGreen(blueGreen)
	default:
		s.Plan = "cannot surge: cannot tell its strategy (neither canary nor blueGreen)"
	}
	return s
}

// canary fills s for the canary strategy: new pods come up to maxSurge
// above replicas and old ones go within maxUnavailable, step by step.
func (s *Surge) canary(canary map[string]any) {
	surge, unavailable, err := CanaryBounds(canary, s.Replicas)
	if err != nil {
		s.Plan = "cannot surge: " + err.Error()
		return
	}
	s.MaxSurge, s.MaxUnavailable = surge, unavailable
	switch {
	case surge == 0:
		s.Plan = fmt.Sprintf("cannot surge: canary maxSurge resolves to 0 pods of %d: Argo removes old pods before starting new ones", s.Replicas)
		return
	case unavailable >= s.Replicas:
		s.Plan = fmt.Sprintf("cannot surge: canary maxUnavailable resolves to %d of %d replicas: Argo may remove every old pod at once", unavailable, s.Replicas)
		return
	}
	steps, why := stepsOf(canary)
	if why != "" {
		s.Plan = "cannot surge: " + why
		return
	}
	s.CanSurge = true
	s.Plan = fmt.Sprintf("--surge restarts it (pod template annotation %s): ALL its %d pod(s) are replaced by a new canary revision, "+
		"%d new at a time on other nodes, old ones removed as new ones become available (maxUnavailable %d)%s",
		RestartedAtAnnotation, s.Replicas, surge, unavailable, steps)
}

// stepsOf describes the canary steps the rollout goes through, or says
// why one would hold it: a pause without a duration waits for a promotion
// forever (Argo's pause step, CanaryStepString in utils/rollout).
func stepsOf(canary map[string]any) (string, string) {
	steps, _ := canary["steps"].([]any)
	if len(steps) == 0 {
		return "", ""
	}
	names := make([]string, 0, len(steps))
	var paused time.Duration
	for i, raw := range steps {
		step, _ := raw.(map[string]any)
		switch {
		case step["setWeight"] != nil:
			names = append(names, fmt.Sprintf("setWeight %v", step["setWeight"]))
		case step["pause"] != nil:
			pause, _ := step["pause"].(map[string]any)
			d, ok := pauseDuration(pause["duration"])
			if !ok {
				return "", fmt.Sprintf("canary step %d is a pause without a duration: the rollout waits there for a promotion (kubectl argo rollouts promote)", i+1)
			}
			paused += d
			names = append(names, "pause "+d.String())
		default:
			names = slices.AppendSeq(names, maps.Keys(step))
		}
	}
	out := "; steps: " + strings.Join(names, ", ")
	if paused > 0 {
		out += fmt.Sprintf(" (its pauses add %s)", paused)
	}
	return out, ""
}

// pauseDuration reads a pause step's duration as Argo's
// RolloutPause.DurationSeconds does: an integer or a string of digits is
// seconds, another string a Go duration ("30s", "1h"). Unset or
// unreadable (Argo's -1) is a pause with no end.
func pauseDuration(v any) (time.Duration, bool) {
	switch x := v.(type) {
	case int64:
		return time.Duration(x) * time.Second, true
	case string:
		if n, err := strconv.ParseInt(x, 10, 32); err == nil {
			return time.Duration(n) * time.Second, true
		}
		d, err := time.ParseDuration(x)
		return d.Truncate(time.Second), err == nil
	}
	return 0, false
}

// blueGreen fills s for the blueGreen strategy: a full preview revision
// starts beside the old one; once it is available the active Service's
// selector is switched to it (unless auto-promotion is off), and the old
// ReplicaSet is scaled down scaleDownDelaySeconds later. The rollout is
// done (Healthy) before that: the drain evicts the old pods, and their
// ReplicaSet, still at full size, starts them again on other nodes.
func (s *Surge) blueGreen(bg map[string]any) {
	unavailable, err := BlueGreenMaxUnavailable(bg, s.Replicas)
	if err != nil {
		s.Plan = "cannot surge: maxUnavailable: " + err.Error()
		return
	}
	s.MaxSurge, s.MaxUnavailable = s.Replicas, unavailable
	if bg["autoPromotionEnabled"] == false {
		s.Plan = "cannot surge: blueGreen with autoPromotionEnabled false waits for a manual promotion before the active Service switches"
		return
	}
	wait := ""
	if n, ok := bg["autoPromotionSeconds"].(int64); ok && n > 0 {
		wait = fmt.Sprintf(" %d s after they are available", n)
	}
	s.CanSurge = true
	s.Plan = fmt.Sprintf("--surge restarts it (pod template annotation %s): blueGreen starts a new revision of %d pod(s) on other nodes "+
		"and switches the active Service %v to it%s; the drain then evicts the old pods, which their ReplicaSet starts again elsewhere, "+
		"outside the active Service, until Argo scales it down %d s after the switch",
		RestartedAtAnnotation, s.Replicas, bg["activeService"], wait, ScaleDownDelaySeconds(bg))
}

// nestedMap returns the map at path in obj.
func nestedMap(obj map[string]any, path ...string) (map[string]any, bool) {
	m, found, err := unstructured.NestedMap(obj, path...)
	return m, found && err == nil
}
