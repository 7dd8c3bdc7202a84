package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// The live audit asks for built-in types in protobuf and for pods as
// metadata only, and still works against a server that answers in JSON (as
// one that cannot encode protobuf does). What goes on the wire is the
// client's part, so a recording HTTP server is enough; the e2e tests run the
// same reads against a real API server.
func TestLiveAsksForProtobufAndPodMetadata(t *testing.T) {
	var mu sync.Mutex
	accept := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept[r.URL.Path] = r.Header.Get("Accept")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
		case r.URL.Path == "/api/v1/pods":
			w.Write([]byte(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[` +
				`{"metadata":{"name":"p","namespace":"shop","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"1","controller":true}]}}]}`))
		case strings.Count(r.URL.Path, "/") == 4 || strings.Count(r.URL.Path, "/") == 3:
			// Every other list: an empty list of the kind asked for.
			w.Write([]byte(`{"metadata":{},"items":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	flags := genericclioptions.NewConfigFlags(false)
	flags.APIServer = ptr.To(srv.URL)
	// A configuration that names JSON (client-go's generated clients
	// prefer protobuf only when none is named) is still read in protobuf.
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.ContentType = runtime.ContentTypeJSON
		return c
	}
	inv := &inspect.Inventory{}
	if err := Live(context.Background(), flags, LiveOptions{AllNamespaces: true, Context: "(server " + srv.URL + ")"}, inv); err != nil {
		t.Fatalf("Live against a JSON-only server: %v", err)
	}
	if len(inv.Pods) != 1 || inv.Pods[0].Labels["app"] != "web" {
		t.Errorf("pod labels not read from the metadata list: %+v", inv.Pods)
	}
	for path, want := range map[string]string{
		"/apis/apps/v1/deployments": "application/vnd.kubernetes.protobuf,application/json",
		"/api/v1/services":          "application/vnd.kubernetes.protobuf,application/json",
		"/api/v1/pods":              "as=PartialObjectMetadataList",
	} {
		if got := accept[path]; !strings.Contains(got, want) {
			t.Errorf("GET %s: Accept %q, want it to contain %q", path, got, want)
		}
	}
}
