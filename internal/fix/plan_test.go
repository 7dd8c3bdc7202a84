package fix

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

const (
	plainWeb = `containers:
- name: web
  image: nginx:1.27
  readinessProbe:
    tcpSocket:
      port: 80
`
	distrolessWeb = `containers:
- name: web
  image: gcr.io/distroless/static:nonroot
  readinessProbe:
    tcpSocket:
      port: 80
`
)

func TestPlanRules(t *testing.T) {
	shutdown30 := int64(30)
	for _, tc := range []struct {
		name    string
		src     string
		version string
		audit   func(*inspect.Options)
		opts    Options
		// want are substrings of the plan's descriptions (one per line).
		want []string
		// absent must not appear in them.
		absent []string
	}{
		{
			name: "missing preStop gets the floor as native sleep; grace 30 covers 5+15+5",
			src:  workload("Deployment", "web", 1, plainWeb),
			want: []string{"web: preStop of web: none -> sleep 5 s"}, absent: []string{"terminationGracePeriodSeconds"},
		},
		{
			name: "declared shutdown time raises the grace period",
			src: workload("Deployment", "web", 1, plainWeb) + `---
apiVersion: v1
kind: ConfigMap
metadata: {name: x, namespace: shop}
`,
			opts: Options{ShutdownSeconds: &shutdown30},
			want: []string{"preStop of web: none -> sleep 5 s; terminationGracePeriodSeconds 30 -> 40"},
		},
		{
			name:    "below 1.30 the delay is an exec sleep",
			src:     workload("Deployment", "web", 1, plainWeb),
			version: "1.29",
			want:    []string{"preStop of web: none -> exec sleep 5 s"},
		},
		{
			name:    "below 1.30 no exec sleep goes into an image without sleep",
			src:     workload("Deployment", "web", 1, distrolessWeb),
			version: "1.29",
			want:    []string{"manual web missing-prestop: " + reasonNoSleepBelowNative},
			absent:  []string{"preStop of web"},
		},
		{
			name: "from 1.30 an image without sleep gets the native action",
			src:  workload("Deployment", "web", 1, distrolessWeb),
			want: []string{"preStop of web: none -> sleep 5 s"},
		},
		{
			name: "a short native sleep is raised to the floor",
			src:  workload("Deployment", "web", 1, plainWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 2\n"),
			want: []string{"preStop of web: sleep 2 s -> sleep 5 s"},
		},
		{
			name: "the broken example: 40 s exec sleep becomes native, grace 40+15+5",
			src:  readExample(t, "broken-prestop-exceeds-grace.yaml"),
			want: []string{"slow-prestop: preStop of api: exec sleep 40 s -> sleep 40 s; terminationGracePeriodSeconds 30 -> 60",
				"slow-prestop: new PodDisruptionBudget slow-prestop"},
		},
		{
			name:    "the broken example below 1.30 keeps the exec sleep and fixes the grace",
			src:     readExample(t, "broken-prestop-exceeds-grace.yaml"),
			version: "1.29",
			want:    []string{"slow-prestop: terminationGracePeriodSeconds 30 -> 60"},
			absent:  []string{"preStop of api"},
		},
		{
			name: "grace period zero: a delay and the grace that covers it",
			src:  readExample(t, "broken-grace-period-zero.yaml"),
			want: []string{"abrupt: preStop of web: none -> sleep 5 s; terminationGracePeriodSeconds 0 -> 25"},
		},
		{
			name: "a PDB with maxUnavailable 0 allows one eviction",
			src:  readExample(t, "broken-pdb-max-unavailable-zero.yaml"),
			want: []string{"locked: maxUnavailable: 1 (one eviction at a time); unhealthyPodEvictionPolicy: AlwaysAllow"},
		},
		{
			name:    "before 1.27 no unhealthyPodEvictionPolicy",
			src:     readExample(t, "broken-pdb-max-unavailable-zero.yaml"),
			version: "1.26",
			want:    []string{"locked: maxUnavailable: 1 (one eviction at a time)"},
			absent:  []string{"AlwaysAllow"},
		},
		{
			name: "single replica, readiness probe and minReadySeconds are manual",
			src:  readExample(t, "broken-single-replica.yaml") + "---\n" + readExample(t, "naive.yaml"),
			want: []string{"manual lonely single-replica: ", "manual naive missing-readiness-probe: ", "manual lonely min-ready-seconds-zero: "},
		},
		{
			name:   "a grace period is never lowered",
			src:    workload("Deployment", "web", 1, "terminationGracePeriodSeconds: 900\n"+plainWeb),
			want:   []string{"manual web grace-period-long: " + reasonNeverLowerGrace, "preStop of web: none -> sleep 5 s"},
			absent: []string{"terminationGracePeriodSeconds 900"},
		},
		{
			name: "a StatefulSet gets its preStop and a new PDB with its selector",
			src:  workload("StatefulSet", "db", 3, plainWeb),
			want: []string{"db: preStop of web: none -> sleep 5 s", "db: new PodDisruptionBudget db: maxUnavailable: 1, the StatefulSet's selector, unhealthyPodEvictionPolicy: AlwaysAllow"},
		},
		{
			name:  "--skip pdb-unhealthy-eviction-policy: new PDBs leave the policy out",
			src:   workload("StatefulSet", "db", 3, plainWeb),
			audit: func(o *inspect.Options) { o.Skip = []string{"pdb-unhealthy-eviction-policy"} },
			opts:  Options{Skip: []string{"pdb-unhealthy-eviction-policy"}},
			want:  []string{"new PodDisruptionBudget db: maxUnavailable: 1, the StatefulSet's selector"}, absent: []string{"AlwaysAllow"},
		},
		{
			name: "--fix-only limits the plan to those checks",
			src:  readExample(t, "broken-prestop-exceeds-grace.yaml"),
			opts: Options{Only: []string{"prestop-exceeds-grace"}},
			want: []string{"slow-prestop: terminationGracePeriodSeconds 30 -> 60"}, absent: []string{"preStop of api", "PodDisruptionBudget", "manual"},
		},
		{
			name: "a suppressed finding is never fixed",
			src: strings.Replace(workload("Deployment", "web", 1, plainWeb), "  template:\n    metadata:\n",
				"  template:\n    metadata:\n      annotations:\n        kubectl-graceful.dev/skip-checks: missing-prestop\n", 1),
			absent: []string{"preStop of web"},
		},
		{
			name: "grace 0 kept on purpose: no preStop that would never run",
			src: strings.Replace(readExample(t, "broken-grace-period-zero.yaml"), "  template:\n    metadata:\n",
				"  template:\n    metadata:\n      annotations:\n        kubectl-graceful.dev/skip-checks: grace-period-zero\n", 1),
			want:   []string{"manual abrupt missing-prestop: " + reasonGraceZeroSuppressed},
			absent: []string{"preStop of web", "terminationGracePeriodSeconds 0 ->"},
		},
		{
			name: "a script hook in an image without a shell is manual",
			src: workload("Deployment", "web", 1, strings.Replace(distrolessWeb, "  readinessProbe:",
				"  lifecycle:\n    preStop:\n      exec:\n        command: [\"sh\", \"-c\", \"/app/drain; sleep 5\"]\n  readinessProbe:", 1)),
			want: []string{"manual web prestop-sleep-binary-missing: " + reasonScriptHook},
		},
		{
			name: "a hook that stops the server before it sleeps is manual, its sleep no delay",
			src: workload("Deployment", "web", 1, strings.Replace(distrolessWeb, "  readinessProbe:",
				"  lifecycle:\n    preStop:\n      exec:\n        command: [\"sh\", \"-c\", \"kill -QUIT 1; sleep 5\"]\n  readinessProbe:", 1)),
			want: []string{"manual web prestop-sleep-binary-missing: " + reasonStopsFirst, "manual web prestop-stops-server-first"},
		},
		{
			// decocms/studio#4608: the sleep after nginx -s quit is not
			// counted, so the grace period is sized without it.
			name:   "nginx -s quit; sleep 15 is not a 15 s delay",
			src:    workload("Deployment", "web", 1, "terminationGracePeriodSeconds: 10\n"+plainWeb+"  lifecycle:\n    preStop:\n      exec:\n        command: [\"/bin/sh\", \"-c\", \"nginx -s quit; sleep 15\"]\n"),
			want:   []string{"manual web prestop-stops-server-first"},
			absent: []string{"terminationGracePeriodSeconds 10 ->", "preStop of web"},
		},
		{
			name:    "below 1.30 a native sleep becomes an exec sleep, and says why",
			src:     workload("Deployment", "web", 1, plainWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 10\n"),
			version: "1.29",
			want:    []string{"preStop of web: sleep 10 s -> exec sleep 10 s (Kubernetes 1.29 does not take lifecycle.preStop.sleep)"},
			absent:  []string{"-> sleep"},
		},
		{
			name:    "below 1.30 a short native sleep raised to the floor is an exec sleep",
			src:     workload("Deployment", "web", 1, plainWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 2\n"),
			version: "1.29",
			want:    []string{"preStop of web: sleep 2 s -> exec sleep 5 s (Kubernetes 1.29 does not take lifecycle.preStop.sleep)"},
		},
		{
			name:    "below 1.30 a native sleep in an image without sleep is refused",
			src:     workload("Deployment", "web", 1, distrolessWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 10\n"),
			version: "1.29",
			want:    []string{"manual web field-newer-than-target: " + reasonNoSleepBelowNative},
			absent:  []string{"preStop of web"},
		},
		{
			name:    "below 1.33 a 0 s native sleep raised to the floor stays native",
			src:     workload("Deployment", "web", 1, plainWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 0\n"),
			version: "1.32",
			want:    []string{"preStop of web: sleep 0 s -> sleep 5 s"},
		},
		{
			name:    "below 1.33 a 0 s native sleep with no floor becomes an exec sleep",
			src:     workload("Deployment", "web", 1, plainWeb+"  lifecycle:\n    preStop:\n      sleep:\n        seconds: 0\n"),
			version: "1.32",
			audit:   func(o *inspect.Options) { o.PreStopFloorSeconds = 0 },
			opts:    Options{PreStopFloorSeconds: -1},
			want:    []string{"preStop of web: sleep 0 s -> exec sleep 0 s (Kubernetes 1.32 does not take lifecycle.preStop.sleep.seconds: 0)"},
		},
		{
			name: "below 1.29 a native sidecar is manual",
			src: workload("Deployment", "web", 1, plainWeb+`initContainers:
- name: proxy
  image: envoyproxy/envoy:v1.31
  restartPolicy: Always
`),
			version: "1.28",
			want:    []string{"manual web field-newer-than-target: " + reasonTargetField},
		},
		{
			name: "a sidecar (restartable init container) gets a preStop too",
			src: workload("Deployment", "web", 1, plainWeb+`initContainers:
- name: proxy
  image: envoyproxy/envoy:v1.31
  restartPolicy: Always
`),
			want: []string{"preStop of web: none -> sleep 5 s"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ao := inspect.DefaultOptions()
			if tc.audit != nil {
				tc.audit(&ao)
			}
			switch tc.opts.PreStopFloorSeconds {
			case 0:
				tc.opts.PreStopFloorSeconds = 5
			case -1: // a floor of 0
				tc.opts.PreStopFloorSeconds = 0
			}
			if tc.opts.ShutdownSeconds != nil {
				ao.ShutdownSeconds = tc.opts.ShutdownSeconds
			}
			fx := fixText(t, tc.src, version(t, tc.version), ao, tc.opts)
			got := descriptions(fx.plan)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("plan lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("plan has %q:\n%s", a, got)
				}
			}
			if len(fx.edit.Refused) > 0 {
				t.Errorf("refused: %+v", fx.edit.Refused)
			}
			assertFixedGone(t, fx)
		})
	}
}
