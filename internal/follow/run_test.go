package follow

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// stream is a Stream whose List waits for release (nil: answers at once)
// and whose watch is w.
func stream(name string, release <-chan struct{}, w *watch.FakeWatcher) *listwatch.Stream {
	return &listwatch.Stream{Name: name, LW: &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			if release != nil {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}}
}

func pod(rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: rv}}
}

// TestListedWaitsForEveryStream: Listed runs once, only after the last
// stream's first List, and Progress's Finished before then is not taken.
func TestListedWaitsForEveryStream(t *testing.T) {
	release, slowWatch, fastWatch := make(chan struct{}), watch.NewFake(), watch.NewFake()
	var seen []string
	listedCalls := 0
	f := Follower{
		Streams: []*listwatch.Stream{stream("fast", nil, fastWatch), stream("slow", release, slowWatch)},
		Handle: func(_ context.Context, n listwatch.Notice) error {
			seen = append(seen, n.Stream)
			if n.Stream == "fast" && n.Kind == listwatch.KindList {
				close(release)
			}
			return nil
		},
		Listed: func(context.Context) (time.Duration, error) {
			listedCalls++
			if len(seen) != 2 {
				t.Errorf("Listed after notices %v, want both streams' Lists first", seen)
			}
			return 0, nil
		},
		Progress: func() (Progress, time.Duration, error) { return Finished, 0, nil },
	}
	end, err := Run(context.Background(), f)
	if end != Settled || err != nil || listedCalls != 1 {
		t.Fatalf("Run = %v, %v with Listed called %d times; want Settled, nil, once", end, err, listedCalls)
	}
}

// TestSettleIsCancelledByFollowing: a Following between Finished and the
// end of the settle time restarts the wait, so the watch ends only after
// a whole settle time with nothing left.
func TestSettleIsCancelledByFollowing(t *testing.T) {
	w := watch.NewFake()
	progress := []Progress{Finished, Following, Finished}
	calls := 0
	var finishedAt time.Time
	f := Follower{
		Streams: []*listwatch.Stream{stream("pods", nil, w)},
		Handle:  func(context.Context, listwatch.Notice) error { return nil },
		Progress: func() (Progress, time.Duration, error) {
			p := progress[min(calls, len(progress)-1)]
			calls++
			if calls == 3 {
				finishedAt = time.Now()
			}
			return p, 300 * time.Millisecond, nil
		},
	}
	go func() {
		w.Modify(pod("2")) // Following
		time.Sleep(100 * time.Millisecond)
		w.Modify(pod("3")) // Finished again
	}()
	end, err := Run(context.Background(), f)
	if end != Settled || err != nil {
		t.Fatalf("Run = %v, %v; want Settled", end, err)
	}
	if calls < 3 || time.Since(finishedAt) < 290*time.Millisecond {
		t.Errorf("ended %v after the last Finished (Progress asked %d times); want a whole settle time after it", time.Since(finishedAt), calls)
	}
}

// TestEnds: Stopped ends at once even before every stream is listed, an
// error of Handle ends Run with it, and ctx's end says whether the
// follower was only settling; Retry runs after the wait Listed asked for.
func TestEnds(t *testing.T) {
	boom := errors.New("boom")
	never := make(chan struct{})
	for _, tc := range []struct {
		name     string
		progress Progress
		handle   error
		cancel   bool
		timeout  bool
		want     End
		wantErr  error
	}{
		{name: "stopped before listed", progress: Stopped, want: Halted},
		{name: "handle fails", handle: boom, wantErr: boom},
		{name: "interrupted", progress: Following, cancel: true, want: Interrupted},
		{name: "interrupted settling", progress: Finished, cancel: true, want: Settled},
		{name: "timed out", progress: Following, timeout: true, want: TimedOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tc.timeout {
				ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
			}
			defer cancel()
			retried := make(chan struct{}, 1)
			f := Follower{
				Streams: []*listwatch.Stream{stream("a", nil, watch.NewFake()), stream("b", never, watch.NewFake())},
				Handle:  func(context.Context, listwatch.Notice) error { return tc.handle },
				Listed:  func(context.Context) (time.Duration, error) { return time.Millisecond, nil },
				Retry: func(context.Context) (time.Duration, error) {
					retried <- struct{}{}
					return 0, nil
				},
				Progress: func() (Progress, time.Duration, error) { return tc.progress, time.Hour, nil },
			}
			if tc.cancel || tc.timeout { // every stream listed
				f.Streams[1] = stream("b", nil, watch.NewFake())
			}
			if tc.cancel { // Retry seen, then Ctrl-C
				go func() { <-retried; cancel() }()
			}
			end, err := Run(ctx, f)
			if end != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("Run = %v, %v; want %v, %v", end, err, tc.want, tc.wantErr)
			}
		})
	}
}
