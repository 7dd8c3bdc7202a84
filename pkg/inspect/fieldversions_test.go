package inspect

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func sidecar(name string) deployOpt {
	return func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.InitContainers = append(d.Spec.Template.Spec.InitContainers, corev1.Container{
			Name: name, Image: "envoyproxy/envoy:v1.31", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)})
	}
}

// TestFieldNewerThanTargetBoundaries: each field is a finding one release
// below the one that first accepts it by default, none from that release
// on, and the message names that release.
func TestFieldNewerThanTargetBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		obj     *appsv1.Deployment
		below   Version
		since   Version
		message string
	}{
		{"preStop sleep", deploy("web", preStop(sleepHook(10))), Version{1, 29}, Version{1, 30}, "lifecycle.preStop.sleep needs Kubernetes 1.30 (audit target: 1.29)"},
		{"preStop sleep of 0 s", deploy("web", preStop(sleepHook(0))), Version{1, 32}, Version{1, 33}, "lifecycle.preStop.sleep.seconds: 0 needs Kubernetes 1.33 (audit target: 1.32)"},
		{"native sidecar", deploy("web", preStop(execHook("sleep", "5")), sidecar("proxy")), Version{1, 28}, Version{1, 29}, "initContainers[].restartPolicy: Always needs Kubernetes 1.29 (audit target: 1.28)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runWith("field-newer-than-target", tc.below, DefaultOptions(), tc.obj)
			if len(got) != 1 || !strings.Contains(got[0].Message, tc.message) || got[0].Severity != SeverityError {
				t.Errorf("target %s: want one error with %q, got %+v", tc.below, tc.message, got)
			}
			if got := runWith("field-newer-than-target", tc.since, DefaultOptions(), tc.obj); len(got) != 0 {
				t.Errorf("target %s accepts it: got %+v", tc.since, got)
			}
			if got := runWith("field-newer-than-target", Version{}, DefaultOptions(), tc.obj); len(got) != 0 {
				t.Errorf("no target (current): got %+v", got)
			}
		})
	}
	pdb := pdbWith("web", matchApp("web"), "", "1")
	if got := runWith("field-newer-than-target", Version{1, 26}, DefaultOptions(), pdb); len(got) != 1 || !strings.Contains(got[0].Message, "spec.unhealthyPodEvictionPolicy needs Kubernetes 1.27") {
		t.Errorf("PDB policy at 1.26: got %+v", got)
	}
	if got := runWith("field-newer-than-target", Version{1, 27}, DefaultOptions(), pdb); len(got) != 0 {
		t.Errorf("PDB policy at 1.27: got %+v", got)
	}
}

// TestFieldNewerThanTargetLive: a live object holding the field was
// accepted by its server, so only fields kubelets need a gate for are
// reported, as warnings that say what the API cannot show.
func TestFieldNewerThanTargetLive(t *testing.T) {
	inv := &Inventory{Live: true, Version: Version{1, 29}}
	inv.Add(deploy("web", preStop(sleepHook(10))), nil)
	inv.Add(pdbWith("web", matchApp("web"), "", "1"), nil)
	var got []Finding
	for _, f := range Audit(inv, DefaultOptions()).Findings {
		if f.Check == "field-newer-than-target" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != SeverityWarning || got[0].Object.Kind != "Deployment" ||
		!strings.Contains(got[0].Message, "this server (1.29) stored it, so feature gate PodLifecycleSleepAction is on in its API server") {
		t.Errorf("live 1.29: want one warning on the Deployment, got %+v", got)
	}
}

// TestUnsupportedFields lists what an exec sleep would have to replace.
func TestUnsupportedFields(t *testing.T) {
	d := deploy("web", preStop(sleepHook(0)), sidecar("proxy"))
	if got := strings.Join(UnsupportedFields(Version{1, 28}, d.Spec.Template.Spec, "app"), ","); got != "lifecycle.preStop.sleep,lifecycle.preStop.sleep.seconds: 0" {
		t.Errorf("app at 1.28: %s", got)
	}
	if got := strings.Join(UnsupportedFields(Version{1, 28}, d.Spec.Template.Spec, "proxy"), ","); got != "initContainers[].restartPolicy: Always" {
		t.Errorf("proxy at 1.28: %s", got)
	}
	if got := UnsupportedFields(Version{1, 33}, d.Spec.Template.Spec, "app"); len(got) != 0 {
		t.Errorf("app at 1.33: %v", got)
	}
}
