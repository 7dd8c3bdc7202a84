package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
)

func TestSayNotFound(t *testing.T) {
	c := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-9"}})
	pods := schema.GroupResource{Resource: "pods"}
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	other := errors.New("connection refused")
	for _, tc := range []struct {
		err      error
		kind, ns string
		want     string
	}{
		{fmt.Errorf("reading pod shop/web: %w", apierrors.NewNotFound(pods, "web")), "pod", "shop", `pod "web" not found in namespace "shop"`},
		{apierrors.NewNotFound(pods, "web"), "pod", "shp", `namespace "shp" not found`},
		{apierrors.NewNotFound(deployments, "api"), "", "shop", `deployment "api" not found in namespace "shop"`},
		{apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "w-9"), "node", "", `node "w-9" not found`},
		{apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "worker-8"), "node", "", `node "worker-8" not found; did you mean "worker-9"?`},
		{other, "pod", "shop", other.Error()},
	} {
		if got := sayNotFound(context.Background(), c, tc.err, tc.kind, tc.ns); got.Error() != tc.want {
			t.Errorf("sayNotFound(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
