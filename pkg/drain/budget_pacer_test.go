package drain

import (
	"context"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// budgetStatus feeds w the status of PDB shop/web as the watch would.
func budgetStatus(w *budgetWatch, allowed int32, disrupted ...string) {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	pdb.Status.DisruptionsAllowed = allowed
	pdb.Status.DisruptedPods = map[string]metav1.Time{}
	for _, p := range disrupted {
		pdb.Status.DisruptedPods[p] = metav1.Now()
	}
	w.set(pdb)
}

// reserveAsync reserves in a goroutine and returns a channel closed when
// the reservation was granted.
func reserveAsync(t *testing.T, p *budgetPacer, ctx context.Context) (<-chan error, <-chan string) {
	t.Helper()
	done, causes := make(chan error, 1), make(chan string, 1)
	go func() {
		done <- p.reserve(ctx, "shop/web", func(c string) { causes <- c })
	}()
	return done, causes
}

func TestPacerHoldsWhatTheBudgetCannotGive(t *testing.T) {
	w := newBudgetWatch()
	p := newBudgetPacer(w)
	ctx := context.Background()
	budgetStatus(w, 1)
	if err := p.reserve(ctx, "shop/web", func(string) { t.Error("first eviction held back") }); err != nil {
		t.Fatal(err)
	}
	// The second is held while the first is in flight...
	second, causes := reserveAsync(t, p, ctx)
	select {
	case <-second:
		t.Fatal("second eviction let through while the only disruption is in flight")
	case c := <-causes:
		t.Logf("held: %s", c)
	}
	// ...and after the first was accepted, before the status shows it...
	p.done("shop/web", "web-a", true)
	// ...and once the status shows it (allowed 0, web-a disrupted).
	budgetStatus(w, 0, "web-a")
	select {
	case <-second:
		t.Fatal("second eviction let through while the budget allows none")
	case <-time.After(2 * pacerRecheck):
	}
	// The disruption controller counts the replacement Ready: allowed 1.
	budgetStatus(w, 1)
	waitGranted(t, second, "second eviction still held once the budget allows a disruption")
}

// waitGranted waits up to 5 s for a reservation of reserveAsync.
func waitGranted(t *testing.T, done <-chan error, held string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal(held)
	}
}

func TestPacerCountsAnAcceptanceTheStatusDoesNotShowYet(t *testing.T) {
	w := newBudgetWatch()
	p := newBudgetPacer(w)
	budgetStatus(w, 1)
	if err := p.reserve(context.Background(), "shop/web", func(string) {}); err != nil {
		t.Fatal(err)
	}
	p.done("shop/web", "web-a", true)
	// The watch still says allowed 1: web-a's admission is not in it yet.
	ctx, cancel := context.WithTimeout(context.Background(), 3*pacerRecheck)
	defer cancel()
	if err := p.reserve(ctx, "shop/web", func(string) {}); err == nil {
		t.Fatal("eviction let through on a status that does not show the accepted one")
	}
}

func TestPacerLetsThroughUnknownBudgetsAndRefusals(t *testing.T) {
	w := newBudgetWatch()
	p := newBudgetPacer(w)
	// Not listed yet: the Eviction API judges.
	for range 3 {
		if err := p.reserve(context.Background(), "shop/web", func(string) { t.Error("held on an unknown budget") }); err != nil {
			t.Fatal(err)
		}
	}
	var nilPacer *budgetPacer
	if err := nilPacer.reserve(context.Background(), "shop/web", nil); err != nil {
		t.Fatal(err)
	}
	budgetStatus(w, 1)
	for range 3 {
		p.done("shop/web", "web-x", false) // refused: nothing pending
	}
	if err := p.reserve(context.Background(), "shop/web", func(string) { t.Error("held after refusals") }); err != nil {
		t.Fatal(err)
	}
}

// With the budgets' watch shared (Drainer.Watches), the pacer reads the
// stream's List and changes; once that watch ended (the Hub closed), no
// status is known: an eviction held back on a status that would never
// change again is let through at once, for the Eviction API to judge.
func TestPacerLetsGoWhenTheSharedBudgetWatchEnds(t *testing.T) {
	hub := listwatch.NewHub(listwatch.Budgets)
	r := &run{Drainer: &Drainer{Watches: hub}}
	w := r.watchBudgets(context.Background(), []string{"shop"})
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	if w.waitSynced(context.Background(), 10*time.Millisecond) {
		t.Errorf("synced before the List")
	}
	hub.Publish(listwatch.Notice{Stream: timeline.StreamBudgets, Key: listwatch.Budgets, Kind: listwatch.KindList, Initial: true, List: []runtime.Object{pdb}})
	if !w.waitSynced(context.Background(), time.Second) {
		t.Fatal("not synced after the List")
	}
	p := newBudgetPacer(w)
	done, causes := reserveAsync(t, p, context.Background())
	<-causes
	hub.Close()
	waitGranted(t, done, "still held back after the budgets' watch ended")
}

// A budget's change wakes the evictions held on it, not those held on
// other budgets (a pool drain holds most of its evictions at once);
// forgetting the statuses wakes them all.
func TestBudgetChangeWakesOnlyItsWaiters(t *testing.T) {
	w := newBudgetWatch()
	_, web := w.state("shop/web")
	_, api := w.state("shop/api")
	w.set(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api"}})
	select {
	case <-web:
		t.Error("a change of shop/api woke an eviction held on shop/web")
	default:
	}
	select {
	case <-api:
	default:
		t.Error("a change of shop/api did not wake the eviction held on it")
	}
	w.forget()
	select {
	case <-web:
	default:
		t.Error("forgetting the statuses did not wake the eviction held on shop/web")
	}
}
