package nodewatch

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// With the drain's --pod-selector, a pod it does not match is never taken
// by that drain: it is not left at the end, so the watch neither waits for
// it nor says it cannot tell (drain node --pod-selector app=solo --surge
// --watch, where another pod stayed on the node by design).
func TestPodSelectorLeavesOthersOut(t *testing.T) {
	sel, err := labels.Parse("app=solo")
	if err != nil {
		t.Fatal(err)
	}
	f := &follower{cfg: Config{PodSelector: sel}, deleted: map[string]bool{}}
	if f.isLeft(newRec("other", "web")) {
		t.Errorf("a pod the drain's --pod-selector does not match counts as left")
	}
	if !f.isLeft(newRec("solo-1", "solo")) {
		t.Errorf("a selected pod still on its node does not count as left")
	}
	f.cfg.PodSelector = nil
	if !f.isLeft(newRec("other", "web")) {
		t.Errorf("without a selector every pod on the node counts")
	}
}

func newRec(name, app string) *timeline.Recorder {
	return timeline.NewRecorder(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name,
		Labels: map[string]string{"app": app}}}, nil, time.Now())
}
