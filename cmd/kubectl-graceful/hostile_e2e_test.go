package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// hostileText holds what a terminal would obey: a CSI colour and an OSC
// title through ESC, a BEL, a one-byte C1 CSI (U+009B), a bidi override and
// an isolate.
const hostileText = "\x1b[31mRED\x1b]0;owned\a\u009b2J\u202eexe\u2066"

// escapedMark is how the start of hostileText reads once escaped: Go
// escapes in lines and YAML (\x1b, \e), \u001b in JSON.
var escapedMarks = []string{`\x1b[31mRED`, `\u001b[31mRED`, `\e[31mRED`}

// klogLine is klog's header (E1130 10:33:30.929738   16775 file.go:176]):
// the client library's logging must not reach the user without -v.
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^ ]+:\d+\].*$`)

// assertInert fails when out holds a raw C0 control other than newline and
// tab, DEL, a C1 control or a bidirectional formatting character.
func assertInert(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		bidi := (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || bidi {
			t.Errorf("%s: raw %U at byte %d:\n%s", what, r, i, out)
			return
		}
	}
}

func hasEscaped(out string) bool {
	for _, m := range escapedMarks {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

// Text written by whoever may create objects (an admission policy's
// message, an Event, an image, an annotation, a PDB's status) reaches
// neither stdout nor stderr of audit, watch or drain raw, in any format.
func TestHostileClusterTextIsEscapedEverywhere(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	node := env.Node(t)
	ctx := context.Background()
	cs := env.Client
	image := "gcr.io/distroless/static" + hostileText + ":nonroot"
	annotations := map[string]string{"example.com/note": hostileText, "sim.graceful.test/exit-after": "1s"}
	podSpec := corev1.PodSpec{
		NodeName:                      node,
		Tolerations:                   []corev1.Toleration{e2e.NodeToleration},
		TerminationGracePeriodSeconds: ptr.To[int64](5),
		Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1", Lifecycle: &corev1.Lifecycle{
			PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "1"}}}}}},
	}

	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: annotations},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "deny": "true"}, Annotations: annotations},
				Spec:       podSpec,
			},
		},
	}
	web.Spec.Template.Spec.NodeName = ""
	web.Spec.Template.Spec.NodeSelector = map[string]string{e2e.NodeTaintKey: node}
	mustCreate(t, func() error {
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, web, metav1.CreateOptions{})
		return err
	})
	// The hostile image stays on a Deployment scaled to 0: kwok, like
	// sigs.k8s.io/yaml, fails on a C1 control and would never run its pods.
	img := web.DeepCopy()
	img.Name, img.Spec.Replicas = "img", ptr.To[int32](0)
	img.Spec.Selector.MatchLabels = map[string]string{"app": "img"}
	img.Spec.Template.Labels = map[string]string{"app": "img"}
	img.Spec.Template.Spec.Containers[0].Image = image
	mustCreate(t, func() error {
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, img, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: annotations},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}},
		}, metav1.CreateOptions{})
		return err
	})
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: annotations},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	mustCreate(t, func() error {
		_, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{})
		return err
	})
	free := []string{"free-0", "free-1", "free-2", "free-3", "free-4", "free-5"}
	for _, name := range free {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "free"}, Annotations: annotations}, Spec: podSpec}
		mustCreate(t, func() error { _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); return err })
	}
	var seen []string
	deadline := time.Now().Add(90 * time.Second)
	for running := false; !running; time.Sleep(200 * time.Millisecond) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		seen, running = nil, err == nil && len(pods.Items) == 1+len(free)
		for _, p := range pods.Items {
			seen = append(seen, describePod(&p)+" node="+p.Spec.NodeName)
			running = running && p.Status.Phase == corev1.PodRunning
		}
		if !running && time.Now().After(deadline) {
			evs, _ := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
			for _, e := range evs.Items {
				seen = append(seen, e.InvolvedObject.Name+": "+e.Reason+" "+e.Message)
			}
			t.Fatalf("pods not Running after 90 s: %q", seen)
		}
	}
	setPDBStatusMessage(t, env, ns, "web", "status "+hostileText)
	denyInNamespace(t, env, ns)

	webPod := firstPod(t, env, ns, "app=web")
	var results []struct {
		what string
		res  e2e.Result
	}
	run := func(what string, wantExit []int, args ...string) e2e.Result {
		t.Helper()
		res := env.Kubectl(t, append([]string{"graceful"}, args...)...)
		results = append(results, struct {
			what string
			res  e2e.Result
		}{what, res})
		ok := false
		for _, c := range wantExit {
			ok = ok || res.ExitCode == c
		}
		if !ok {
			t.Errorf("%s: exit %d, want one of %v\nstdout: %q\nstderr: %q", what, res.ExitCode, wantExit, res.Stdout, res.Stderr)
		}
		return res
	}

	// audit: the image reaches the prestop-sleep-binary-missing message.
	for _, o := range []string{"table", "json", "yaml", "sarif"} {
		res := run("audit -o "+o, []int{0, 2}, "audit", "-n", ns, "-o", o, "--fail-on", "none")
		if !hasEscaped(res.Stdout) {
			t.Errorf("audit -o %s does not show the image, escaped:\n%s", o, res.Stdout)
		}
	}
	run("audit -A -o yaml", []int{0}, "audit", "-A", "-o", "yaml", "--fail-on", "none")

	// drain: the admission policy refuses every eviction with its message.
	run("drain --dry-run", []int{0, 2}, "drain", "node", node, "--ignore-daemonsets", "--dry-run")
	run("drain --dry-run -o json", []int{0, 2}, "drain", "node", node, "--ignore-daemonsets", "--dry-run", "-o", "json")
	for _, res := range []e2e.Result{
		run("drain", []int{1, 2}, "drain", "node", node, "--ignore-daemonsets", "--timeout", "10s", "--force"),
		run("drain -o json", []int{1, 2}, "drain", "node", node, "--ignore-daemonsets", "--timeout", "10s", "--force", "-o", "json"),
	} {
		if !hasEscaped(res.Stdout + res.Stderr) {
			t.Errorf("drain does not quote the policy's refusal, escaped:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
		}
	}

	// watch: a refused delete and a refused eviction end in the one-line
	// error, which quotes the policy's message.
	for _, res := range []e2e.Result{
		run("watch --delete (denied)", []int{1}, "watch", "pod", webPod, "-n", ns, "--delete", "--timeout", "30s"),
		run("watch --evict (denied)", []int{1}, "watch", "pod", free[0], "-n", ns, "--evict", "--timeout", "10s"),
	} {
		if !hasEscaped(res.Stderr) {
			t.Errorf("the refusal does not quote the policy's message, escaped: %q", res.Stderr)
		}
	}
	// watch: terminations that happen, with a hostile Event in every format
	// (written while the watch runs: Events from before it are not news).
	for i, o := range []string{"", "json", "mermaid"} {
		args := []string{"watch", "pod", free[i], "-n", ns, "--delete", "--grace-period", "3", "--settle", "1s", "--timeout", "60s"}
		if o != "" {
			args = append(args, "-o", o)
		}
		done := eventWhenTerminating(t, env, ns, free[i], "event "+hostileText)
		res := run("watch -o "+o, []int{0, 2}, args...)
		<-done
		if o != "mermaid" && !hasEscaped(res.Stdout+res.Stderr) {
			t.Errorf("watch -o %s does not show the Event's message, escaped:\nstdout: %s\nstderr: %s", o, res.Stdout, res.Stderr)
		}
	}
	// watch node: a hostile Event about a pod terminating on the watched
	// node, in every format (the web pod, refused eviction, stays: the
	// watch ends at --timeout).
	for i, o := range []string{"", "json", "mermaid"} {
		args := []string{"graceful", "watch", "node", node, "--settle", "1s", "--timeout", "15s"}
		if o != "" {
			args = append(args, "-o", o)
		}
		w := env.StartKubectl(t, 2*time.Minute, args...)
		if o == "mermaid" {
			w.WaitStderr(t, time.Minute, "capacity")
		} else {
			w.WaitOutput(t, time.Minute, "capacity")
		}
		pod := free[3+i]
		done := eventWhenTerminating(t, env, ns, pod, "event "+hostileText)
		if err := cs.CoreV1().Pods(ns).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](3)}); err != nil {
			t.Fatal(err)
		}
		<-done
		res := w.Wait()
		results = append(results, struct {
			what string
			res  e2e.Result
		}{"watch node -o " + o, res})
		if res.ExitCode != 2 || !hasEscaped(res.Stdout+res.Stderr) {
			t.Errorf("watch node -o %s: exit %d (want 2: the web pod stays), or does not show the Event's message escaped:\nstdout: %s\nstderr: %s", o, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	for _, r := range results {
		assertInert(t, r.what+" stdout", r.res.Stdout)
		assertInert(t, r.what+" stderr", r.res.Stderr)
		if l := klogLine.FindString(r.res.Stderr); l != "" {
			t.Errorf("%s: client library log on stderr: %s", r.what, l)
		}
	}
}

// eventWhenTerminating writes an Event with msg about pod as soon as the
// pod has a deletionTimestamp; the channel closes when it is written (or
// the pod is gone, or 60 s passed).
func eventWhenTerminating(t *testing.T, env *e2e.Env, ns, pod, msg string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			p, err := env.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
			if err != nil {
				t.Errorf("pod %s: %v", pod, err)
				return
			}
			if p.DeletionTimestamp == nil {
				continue
			}
			_, err = env.Client.CoreV1().Events(ns).Create(ctx, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{GenerateName: pod + "-"},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod, UID: p.UID, APIVersion: "v1"},
				Reason:         "Hostile", Message: msg, Type: corev1.EventTypeWarning,
				FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1,
				Source: corev1.EventSource{Component: "e2e"},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Errorf("event: %v", err)
			}
			return
		}
	}()
	return done
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

func firstPod(t *testing.T, env *e2e.Env, ns, selector string) string {
	t.Helper()
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("pods %s in %s: %v", selector, ns, err)
	}
	return pods.Items[0].Name
}

// setPDBStatusMessage writes msg into the PDB's DisruptionAllowed
// condition through the status subresource (the disruption controller may
// rewrite it later).
func setPDBStatusMessage(t *testing.T, env *e2e.Env, ns, name, msg string) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
			Reason: policyv1.InsufficientPodsReason, Message: msg, LastTransitionTime: metav1.Now(), ObservedGeneration: p.Generation}}
		_, err = env.Client.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("PDB status: %v", err)
	}
}

// denyInNamespace installs a ValidatingAdmissionPolicy that refuses, in ns
// only, deleting pods labelled deny=true and every eviction, with
// hostileText in its message; it waits until the API server enforces it.
func denyInNamespace(t *testing.T, env *e2e.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	name := "e2e-hostile-" + ns
	adm := env.Client.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
				{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete, admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "pods/eviction"}},
				}},
			}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: `!(has(request.subResource) && request.subResource == "eviction") && (request.operation != "DELETE" || !has(oldObject.metadata.labels) || !("deny" in oldObject.metadata.labels))`,
				Message:    "denied by policy " + hostileText,
			}},
		},
	}
	mustCreate(t, func() error {
		_, err := adm.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}},
		},
	}
	mustCreate(t, func() error {
		_, err := adm.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	probe := firstPod(t, env, ns, "app=web")
	e2e.WaitFor(t, 60*time.Second, "the admission policy to refuse deletes", func() bool {
		err := env.Client.CoreV1().Pods(ns).Delete(ctx, probe, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && (apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) && strings.Contains(err.Error(), "denied by policy")
	})
}

// describePod is a short form of a pod's state for failure messages.
func describePod(p *corev1.Pod) string {
	return fmt.Sprintf("%s phase=%s deletion=%v", p.Name, p.Status.Phase, p.DeletionTimestamp)
}
