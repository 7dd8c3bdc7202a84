// Package amount writes the resource amounts of the drain's pool
// preflight in their unit (preflight.ResourceCapacity's Unit) and for a
// person. It is the plugin's own: the preflight and its renderer share it.
package amount

import (
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Units of preflight.ResourceCapacity amounts.
const (
	// Millicores: cpu, 1000 = one CPU.
	Millicores = "millicores"
	// Bytes: memory, ephemeral-storage, hugepages-*.
	Bytes = "bytes"
	// Count: pods and extended resources (nvidia.com/gpu, ...).
	Count = "count"
)

// UnitOf returns the unit (Millicores, Bytes, Count) of a resource's amounts.
func UnitOf(name corev1.ResourceName) string {
	switch {
	case name == corev1.ResourceCPU:
		return Millicores
	case name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage ||
		strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix):
		return Bytes
	}
	return Count
}

// Format writes v, an amount of resource name in its Unit, for a
// person: "1.5 CPU", "24 GiB", "40 pods", "2 nvidia.com/gpu".
func Format(name string, v int64) string {
	switch UnitOf(corev1.ResourceName(name)) {
	case Millicores:
		return strconv.FormatFloat(float64(v)/1000, 'f', -1, 64) + " CPU"
	case Bytes:
		const mi, gi = 1 << 20, 1 << 30
		if v >= gi {
			return strconv.FormatFloat(math.Round(float64(v)*10/gi)/10, 'f', -1, 64) + " GiB"
		}
		return strconv.FormatFloat(math.Round(float64(v)/mi), 'f', -1, 64) + " MiB"
	}
	return strconv.FormatInt(v, 10) + " " + name
}
