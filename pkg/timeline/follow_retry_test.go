package timeline

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// A refused eviction's retry that comes after another client deleted the
// pod sends nothing: the pod is gone, and its 404 would end a normal
// termination with an error.
func TestEvictRetryAfterThePodIsGone(t *testing.T) {
	f := newFollower(Config{Client: fake.NewClientset(), Namespace: "ns", Name: "web-0", Action: Evict}, NewRecorder(testPod(30, nil), nil, time.Now()))
	f.rec.gone = true
	if wait, err := f.evict(context.Background()); err != nil || wait != 0 {
		t.Errorf("evict after the pod is gone = %v, %v; want no retry and no error", wait, err)
	}
}
