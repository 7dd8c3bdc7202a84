package ingress

import (
	"context"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func ingressTo(ns, name, class, svc string) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr.To(class),
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc}}}}
}

// One read of every namespace answers for each; the line names the
// Ingress, its class and controller, and the controller's own time where
// it is known; without --ingress-api the timing is an estimate.
func TestIndexDiscover(t *testing.T) {
	c := fake.NewClientset(ingressTo("shop", "front", "nginx", "web"), ingressTo("other", "front", "nginx", "web"),
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}})
	x, err := Read(context.Background(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	msg, estimated := x.Discover("shop", []string{"web"}, "")
	want := "routed to by Ingress front (Service web, class nginx, controller k8s.io/ingress-nginx: ingress-nginx may send new requests up to 5 s after the endpoint turns not ready, docs/ingress.md): when its controller stopped"
	if !estimated || !strings.HasPrefix(msg, want) {
		t.Errorf("got %q (estimated %v), want it to start %q", msg, estimated, want)
	}
	if got := x.Routes("shop", []string{"web"}); len(got) != 1 {
		t.Errorf("routes of shop: %+v, want the one of shop alone", got)
	}
	if msg, _ := x.Discover("shop", []string{"api"}, ""); msg != "" {
		t.Errorf("no Ingress routes to api, yet %q", msg)
	}
	if msg, estimated := x.Discover("shop", []string{"web"}, "http://127.0.0.1:9000"); estimated || !strings.HasSuffix(msg, "reading its controller's API at http://127.0.0.1:9000") {
		t.Errorf("with the API: %q (estimated %v)", msg, estimated)
	}
}
