package inspect

import (
	"strconv"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func ingressClass(name, controller string, isDefault bool) *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{"ingressclass.kubernetes.io/is-default-class": "true"}
	}
	return ic
}

// classIngress is Ingress "front" in namespace ns sending / to Service web,
// of class (nil: the default class).
func classIngress(ns string, class *string) *networkingv1.Ingress {
	ing := albIngress(nil, class, "web")
	ing.Namespace = ns
	return ing
}

// The preStop floor of pods behind an Ingress is the time its controller
// needs, where that is longer than --prestop-floor; the finding says which
// Ingress and controller, and asks the fix for that delay.
func TestPreStopFloorFromIngressController(t *testing.T) {
	const istio, nginx = "istio.io/ingress-controller", "k8s.io/ingress-nginx"
	cases := []struct {
		name    string
		floor   int64
		objs    []runtime.Object
		want    string
		seconds int64 // Finding.PreStopSeconds
	}{
		{"istio needs 10 s", 5, objs(ingressClass("istio", istio, false), classIngress("shop", ptr.To("istio"))),
			"preStop sleeps 3 s, below 10 s: Ingress front (class istio) is served by Istio ingress gateway", 10},
		{"the default class, by its annotation", 5, objs(ingressClass("mesh", istio, true), classIngress("shop", nil)),
			"below 10 s: Ingress front (class mesh)", 10},
		{"a controller string with a class suffix", 2, objs(ingressClass("hap", "haproxy.org/ingress-controller/hap", false), classIngress("shop", ptr.To("hap"))),
			"below 5 s: Ingress front (class hap) is served by HAProxy Kubernetes Ingress Controller", 5},
		{"a controller faster than the floor: the floor", 6, objs(ingressClass("nginx", nginx, false), classIngress("shop", ptr.To("nginx"))),
			"preStop sleeps 3 s, below 6 s: kube-proxy", 0},
		{"a controller the audit does not know: the floor", 6, objs(ingressClass("x", "example.com/x", false), classIngress("shop", ptr.To("x"))),
			"below 6 s: kube-proxy", 0},
		{"an Ingress in another namespace does not route to the pods", 5, objs(ingressClass("istio", istio, false), classIngress("other", ptr.To("istio"))), "below 5 s: kube-proxy", 0},
		{"no IngressClass read: the controller is unknown", 5, objs(classIngress("shop", ptr.To("istio"))), "below 5 s: kube-proxy", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.PreStopFloorSeconds = tc.floor
			all := append(objs(deploy("web", preStop(sleepHook(3))), service("web", app("web"))), tc.objs...)
			got := runWith("prestop-too-short", Version{1, 37}, opts, all...)
			if len(got) != 1 || !strings.Contains(got[0].Message, tc.want) {
				t.Fatalf("got %+v, want one finding saying %q", got, tc.want)
			}
			if got[0].PreStopSeconds != tc.seconds {
				t.Errorf("PreStopSeconds %d, want %d", got[0].PreStopSeconds, tc.seconds)
			}
			if want := max(tc.floor, tc.seconds, suggestedPreStopSeconds); !strings.Contains(got[0].Fix, `"seconds":`+strconv.FormatInt(want, 10)) {
				t.Errorf("fix %q does not set the preStop to %d s", got[0].Fix, want)
			}
		})
	}
}

// missing-prestop names the controller's time too.
func TestMissingPreStopNamesIngressController(t *testing.T) {
	got := run("missing-prestop", deploy("web", preStop(nil)), service("web", app("web")),
		ingressClass("istio", "istio.io/ingress-controller", false), classIngress("shop", ptr.To("istio")))
	if len(got) != 1 || !strings.Contains(got[0].Message, "; Ingress front (class istio) is served by Istio ingress gateway") || got[0].PreStopSeconds != 10 {
		t.Fatalf("got %+v", got)
	}
}

// The report says which controllers the Ingresses use and whether their
// timing is known, or that the IngressClasses could not be read.
func TestIngressNotes(t *testing.T) {
	inv := &Inventory{}
	for _, o := range objs(ingressClass("traefik", "traefik.io/ingress-controller", true), ingressClass("x", "example.com/x", false),
		classIngress("shop", nil), classIngress("shop", ptr.To("x")), classIngress("web", ptr.To("x")), classIngress("shop", ptr.To("gce"))) {
		inv.Add(o, nil)
	}
	notes := ingressNotes(inv)
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "IngressClass traefik is served by Traefik: it may send a pod new requests up to 2 s") ||
		!strings.HasPrefix(notes[1], "IngressClass x (controller example.com/x): not a controller whose timing the audit knows") {
		t.Errorf("notes %q", notes)
	}
	inv.IngressClassesUnread = "forbidden"
	if notes := ingressNotes(inv); len(notes) != 1 || !strings.Contains(notes[0], "IngressClasses could not be read (forbidden)") {
		t.Errorf("notes %q", notes)
	}
	if notes := ingressNotes(&Inventory{IngressClassesUnread: "forbidden"}); len(notes) != 0 {
		t.Errorf("notes without Ingresses %q", notes)
	}
}
