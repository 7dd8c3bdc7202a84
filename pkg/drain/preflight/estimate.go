package preflight

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// PoolEviction is one pod the pool evicts, with what the wall-time model reads.
type PoolEviction struct {
	// Node is the pool node it is evicted from.
	Node      string `json:"node"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// PDB is "namespace/name" of the PodDisruptionBudget its eviction uses a
	// disruption of (a Ready pod under one), "" when no budget paces it.
	PDB string `json:"pdb,omitempty"`
	// GracePeriodSeconds is the grace period the drain gives it, in
	// seconds: the longest it can take to be gone after its eviction.
	GracePeriodSeconds int64 `json:"gracePeriodSeconds"`
	// ExitSeconds is the least time it takes to be gone after its eviction,
	// as far as its spec tells: the longest preStop sleep of its containers
	// (pkg/prestop), at most the grace period; 0 when none is known.
	ExitSeconds int64 `json:"exitSeconds"`
}

// poolPods lists the evicted pods for the model, sorted by node (drain
// order), then budget, then name.
func poolPods(nodes []*Report, pods []poolPod, flags Flags) []PoolEviction {
	pdbOf := budgetOfPod(nodes)
	order := map[string]int{}
	for i, nr := range nodes {
		order[nr.Node] = i
	}
	out := make([]PoolEviction, 0, len(pods))
	for _, p := range pods {
		pp := PoolEviction{Node: p.node, Namespace: p.pod.Namespace, Name: p.pod.Name,
			GracePeriodSeconds: gracePeriod(p.pod, flags)}
		if isReady(p.pod) && !bypassesBudget(p.pod) {
			pp.PDB = pdbOf[p.node+"/"+podKey(p.pod)]
		}
		pp.ExitSeconds = min(exitSeconds(p.pod), pp.GracePeriodSeconds)
		out = append(out, pp)
	}
	slices.SortStableFunc(out, func(a, b PoolEviction) int {
		return cmp.Or(cmp.Compare(order[a.Node], order[b.Node]), cmp.Compare(a.PDB, b.PDB),
			cmp.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name))
	})
	return out
}

// exitSeconds returns the longest preStop sleep known from pod's spec.
func exitSeconds(pod *corev1.Pod) int64 {
	var m int64
	for _, c := range pod.Spec.Containers {
		if s, known, _ := prestop.Duration(c); known {
			m = max(m, s)
		}
	}
	return m
}

// idealPoolSeconds returns the wall time in seconds of the ideal drain of
// the pool r describes, maxConcurrent nodes at a time (at least 1): the
// nodes start in drain order as soon as one of maxConcurrent slots is
// free; every eviction is sent the moment its budget allows it (no retry
// delay); a PodDisruptionBudget lets PerWave of its Ready pods go at a
// time, across all nodes, and each frees its place WaveSeconds after its
// eviction (its replacement Ready elsewhere), its first places only after
// one WaveSeconds when it allows no disruption now; a pod is gone
// ExitSeconds after its eviction (its known preStop sleep), a node done
// when its last pod is gone (and its already terminating pods' grace has
// run out). Pods without a budget go at once. Capacity, the API's latency
// and pods slower than their preStop are not modelled, so a real drain
// takes longer; what blocks a blocked pool is ignored.
func idealPoolSeconds(r *PoolReport, maxConcurrent int) float64 {
	return idealPoolSecondsWith(r, maxConcurrent, poolTimes{})
}

// poolTimes replaces times of the model of idealPoolSeconds with measured
// ones, in seconds; a zero field keeps the model's.
type poolTimes struct {
	// ExitSeconds is, for every pod, the time from its eviction until it
	// is gone.
	ExitSeconds float64
	// WaveSeconds is, for every budget, the time from an eviction until
	// the budget allows the next (the replacement Ready).
	WaveSeconds float64
}

// idealPoolSecondsWith is idealPoolSeconds with the times of measured in
// place of the model's, for a benchmark that measured them on its cluster.
func idealPoolSecondsWith(r *PoolReport, maxConcurrent int, measured poolTimes) float64 {
	exit := func(p PoolEviction) float64 { return float64(p.ExitSeconds) }
	if measured.ExitSeconds > 0 {
		exit = func(PoolEviction) float64 { return measured.ExitSeconds }
	}
	wave := func(b PoolBudget) float64 { return b.WaveSeconds }
	if measured.WaveSeconds > 0 {
		wave = func(PoolBudget) float64 { return measured.WaveSeconds }
	}
	return poolSeconds(r, maxConcurrent, wave, exit)
}

// estimatedPoolSeconds is the model of idealPoolSeconds with the drain's
// retry delay after each refused eviction added to every wave and each pod
// taking its whole grace period: a rough upper estimate.
func estimatedPoolSeconds(r *PoolReport, maxConcurrent int) int64 {
	s := poolSeconds(r, maxConcurrent,
		func(b PoolBudget) float64 { return b.WaveSeconds + r.RetryDelaySeconds },
		func(p PoolEviction) float64 { return float64(p.GracePeriodSeconds) })
	return int64(math.Ceil(s))
}

// poolSeconds runs the model of idealPoolSeconds with wave giving each
// budget's time from an eviction to its next place and term each pod's
// time from eviction to gone.
func poolSeconds(r *PoolReport, maxConcurrent int, wave func(PoolBudget) float64, term func(PoolEviction) float64) float64 {
	// Each budget's places, as the time each is next free.
	places := map[string][]float64{}
	waves := map[string]float64{}
	for _, b := range r.Budgets {
		first := 0.0
		if b.DisruptionsAllowed == 0 {
			first = wave(b)
		}
		places[b.key()], waves[b.key()] = slices.Repeat([]float64{first}, int(max(b.PerWave, 1))), wave(b)
	}
	byNode := map[string][]PoolEviction{}
	for _, p := range r.Pods {
		byNode[p.Node] = append(byNode[p.Node], p)
	}
	slots := make([]float64, max(maxConcurrent, 1))
	var end float64
	for _, nr := range r.Nodes {
		s := slices.Index(slots, slices.Min(slots))
		start := slots[s]
		done := max(start, float64(longestRemainingGrace(nr.Terminating)))
		for _, p := range byNode[nr.Node] {
			t := start
			if pl := places[p.PDB]; pl != nil {
				i := slices.Index(pl, slices.Min(pl))
				t = max(t, pl[i])
				pl[i] = t + waves[p.PDB]
			}
			done = max(done, t+term(p))
		}
		slots[s] = done
		end = max(end, done)
	}
	return end
}
