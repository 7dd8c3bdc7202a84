package drain

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// Backoff is the wait between eviction retries after a 429. The library
// sleeps a fixed EvictErrorRetryDelay (libraryRetryDelay, short, because
// that sleep ignores the context); the observed client waits the rest of
// Base*2^(n-1), capped at Cap, before the next request, but no longer than
// until the pod's PDB allows a disruption again, and gives up at once when
// the context ends.
type Backoff struct {
	// Base is the first delay (the library's EvictErrorRetryDelay); must be > 0.
	Base time.Duration
	// Cap is the longest delay between two requests for one pod.
	Cap time.Duration
}

// libraryRetryDelay is the library's EvictErrorRetryDelay: non-zero (zero
// retries a 429 in a tight loop) and short (its sleep ignores Ctrl-C).
const libraryRetryDelay = 200 * time.Millisecond

// delay returns the whole wait before retry number n (n >= 1).
func (b Backoff) delay(n int) time.Duration {
	d := b.Base
	for i := 1; i < n && d < b.Cap; i++ {
		d *= 2
	}
	return min(d, b.Cap)
}

// observedClient is a kubernetes.Interface whose policy/v1 evictions are
// seen by a Tracker: every request, every refusal with its causes, every
// acceptance. Everything else passes through.
type observedClient struct {
	kubernetes.Interface
	obs *evictionRecorder
}

// evictionRecorder holds the per-pod retry counts for the backoff.
type evictionRecorder struct {
	tracker *Tracker
	backoff Backoff
	// budgets and pdbOf ("namespace/pod" -> "namespace/pdb") let a refused
	// pod be retried as soon as its budget allows; both may be nil.
	budgets *budgetWatch
	pdbOf   map[string]string
	mu      sync.Mutex
	refused map[string]int // consecutive retryable refusals per "namespace/name"
	// retryAfter is the wait the server asked for in the last refusal.
	retryAfter map[string]time.Duration
	// budgetRefused: the last refusal was a PodDisruptionBudget's, so a
	// rise of its disruptionsAllowed ends the wait early.
	budgetRefused map[string]bool
	// client reads a refused pod again before its retry.
	client kubernetes.Interface
	// pacer, in a pool drain, holds an eviction back while its PDB's
	// status allows no disruption; nil for one node.
	pacer *budgetPacer
	// failures keeps the final eviction errors that are the cluster
	// failing us (the retrying client's, when client is one).
	failures *apiFailures
	// pods answers reads of the node's pods from one watch; nil reads
	// the API server.
	pods *nodePods
}

// newObservedClient wraps client so that evictions feed tracker and back
// off as b says, retrying early when budgets shows the pod's PDB (pdbOf)
// allowing a disruption.
func newObservedClient(client kubernetes.Interface, tracker *Tracker, b Backoff, budgets *budgetWatch, pdbOf map[string]string, pacer *budgetPacer) kubernetes.Interface {
	rec := &evictionRecorder{tracker: tracker, backoff: b,
		budgets: budgets, pdbOf: pdbOf, refused: map[string]int{}, retryAfter: map[string]time.Duration{},
		budgetRefused: map[string]bool{}, client: client, pacer: pacer}
	if rc, ok := client.(*retryingClient); ok {
		rec.failures = rc.failures
	}
	return &observedClient{Interface: client, obs: rec}
}

// PolicyV1 returns the policy/v1 client with observed evictions.
func (c *observedClient) PolicyV1() policyv1client.PolicyV1Interface {
	return &observedPolicy{PolicyV1Interface: c.Interface.PolicyV1(), obs: c.obs}
}

type observedPolicy struct {
	policyv1client.PolicyV1Interface
	obs *evictionRecorder
}

// Evictions returns the observed eviction client of namespace.
func (p *observedPolicy) Evictions(namespace string) policyv1client.EvictionInterface {
	rc, _ := p.PolicyV1Interface.RESTClient().(*rest.RESTClient)
	return &observedEvictions{EvictionInterface: p.PolicyV1Interface.Evictions(namespace), obs: p.obs, rest: rc}
}

type observedEvictions struct {
	policyv1client.EvictionInterface
	obs *evictionRecorder
	// rest sends the evictions; nil (a fake clientset) sends them
	// through EvictionInterface.
	rest *rest.RESTClient
}

// send posts ev once, as EvictionInterface.Evict does but with client-go's
// own retries off: rest.Request sends a request again, up to 10 times and
// unseen by its caller, when the answer is a 429 or 5xx with a Retry-After
// header (API Priority and Fairness throttling, a budget "still being
// processed", a server timeout). Each request sent is then one attempt
// the tracker counts (ATTEMPTS), and each throttled answer one the drain
// shows and waits out itself (the library's 429 retry, Evict's wait).
func (e *observedEvictions) send(ctx context.Context, ev *policyv1.Eviction) error {
	if e.rest == nil {
		return e.EvictionInterface.Evict(ctx, ev)
	}
	return e.rest.Post().AbsPath("/api/v1").Namespace(ev.Namespace).Resource("pods").Name(ev.Name).
		SubResource("eviction").MaxRetries(0).Body(ev).Do(ctx).Error()
}

// Evict waits out the backoff for a pod refused before (or the server's
// Retry-After, when longer), sends the eviction and records the answer.
func (e *observedEvictions) Evict(ctx context.Context, ev *policyv1.Eviction) (err error) {
	defer func() {
		if ctx.Err() == nil {
			e.obs.failures.note(err)
		}
	}()
	o, key := e.obs, ev.Namespace+"/"+ev.Name
	o.mu.Lock()
	n, asked := o.refused[key], o.retryAfter[key]
	o.mu.Unlock()
	pod := o.tracker.listedPod(key)
	if n > 0 {
		if err := o.waitRetry(ctx, key, max(o.backoff.delay(n), asked)-libraryRetryDelay); err != nil {
			return err
		}
	}
	reread := n > 0
	for lost, conflicts := 0, 0; ; {
		if reread {
			// The pod may have changed while we waited, our eviction's
			// answer was lost, or another client evicted it: read it
			// again rather than assume.
			fresh, err := o.reread(ctx, ev.Namespace, ev.Name, conflicts > 0)
			if apierrors.IsNotFound(err) {
				o.tracker.set(ev.Namespace, ev.Name, StateGone, "")
				return err // the library takes a 404 as the pod gone
			} else if err == nil && !o.tracker.sameAsListed(fresh) {
				// A new pod holds the name (a StatefulSet recreated it,
				// maybe on another node): ours is gone, the new one is
				// not ours to evict. The library takes a 404 as gone.
				o.tracker.set(ev.Namespace, ev.Name, StateGone, "")
				return apierrors.NewNotFound(corev1.Resource("pods"), ev.Name)
			} else if err == nil {
				pod = fresh
			} else if ctx.Err() != nil {
				return err
			}
		}
		if pod != nil && pod.DeletionTimestamp != nil {
			// Evicting a terminating pod would delete it again (the eviction
			// subresource skips budgets for it): wait for it instead.
			o.tracker.alreadyTerminating(pod)
			return nil
		}
		if err := o.reserve(ctx, key, ev); err != nil {
			return err
		}
		o.tracker.attempt(ev.Namespace, ev.Name)
		err := e.send(ctx, preconditioned(ev, pod, conflicts < maxConflicts))
		kind := eviction.Read(err).Kind
		o.pacer.done(o.pdbOf[key], ev.Name, kind == eviction.Accepted || kind == eviction.Lost)
		if apierrors.IsConflict(err) && conflicts < maxConflicts {
			// The pod changed since we read it; another drain may have
			// evicted it, and the eviction subresource answers success
			// for a terminating pod, so only the precondition tells.
			conflicts++
			reread = true
			continue
		}
		o.record(ctx, ev.Namespace, ev.Name, err)
		if a := eviction.Read(err); a.Kind == eviction.AdmissionRefused {
			// The library retries any 429, a webhook's denial with that
			// code too: give it the refusal as a plain error, which it
			// reports for the pod and does not retry.
			return errors.New(admissionRefusedPrefix + a.Cause)
		} else if a.Kind != eviction.Lost || !sleep(ctx, o.backoff.delay(lost+1)) {
			return err
		}
		lost++
		reread = true
	}
}

// reserve waits, in a pool drain, until the pod's PDB has a disruption to
// give that no other eviction of the drain took, showing the wait as the
// pod's cause.
func (o *evictionRecorder) reserve(ctx context.Context, key string, ev *policyv1.Eviction) error {
	return o.pacer.reserve(ctx, o.pdbOf[key], func(cause string) {
		o.tracker.waiting(ev.Namespace, ev.Name, cause)
	})
}

// admissionRefusedPrefix starts the cause of a pod whose eviction an
// admission webhook or a ValidatingAdmissionPolicy denied.
const admissionRefusedPrefix = "refused by admission: "

// maxConflicts bounds the evictions of one pod refused by their
// resourceVersion precondition (a pod whose status keeps changing); the
// next is sent with the UID precondition only.
const maxConflicts = 5

// preconditioned returns ev with preconditions on pod (nil: ev as it is):
// its UID, so that a pod recreated under the name is never evicted in its
// place, and with withVersion its resourceVersion, so that the eviction
// fails with a conflict (409) when the pod changed since it was read, as
// when another client evicted it: the eviction subresource evicts a
// terminating pod again and answers success, which would make us claim
// another drain's eviction. The subresource honours both
// (pkg/registry/core/pod/storage/eviction.go: a resourceVersion set by the
// requester is kept, not replaced by the one it read).
func preconditioned(ev *policyv1.Eviction, pod *corev1.Pod, withVersion bool) *policyv1.Eviction {
	if pod == nil || pod.UID == "" {
		return ev
	}
	c := ev.DeepCopy()
	if c.DeleteOptions == nil {
		c.DeleteOptions = &metav1.DeleteOptions{}
	}
	if c.DeleteOptions.Preconditions == nil {
		c.DeleteOptions.Preconditions = &metav1.Preconditions{}
	}
	uid, rv := pod.UID, pod.ResourceVersion
	c.DeleteOptions.Preconditions.UID = &uid
	if withVersion && rv != "" {
		c.DeleteOptions.Preconditions.ResourceVersion = &rv
	}
	return c
}

// record turns one eviction answer (read by pkg/eviction) into the pod's
// state: a refusal the library retries (a PodDisruptionBudget's 429,
// throttling, a terminating namespace) leaves it blocked with the cause.
func (o *evictionRecorder) record(ctx context.Context, namespace, name string, err error) {
	key := namespace + "/" + name
	a := eviction.Read(err)
	o.mu.Lock()
	if a.Retryable() {
		o.refused[key]++
		o.retryAfter[key] = a.RetryAfter
		o.budgetRefused[key] = a.Kind == eviction.BudgetRefused
	} else {
		delete(o.refused, key)
		delete(o.retryAfter, key)
		delete(o.budgetRefused, key)
	}
	o.mu.Unlock()
	switch {
	case a.Kind == eviction.Accepted:
		o.tracker.accept(namespace, name, "")
	case a.Kind == eviction.NotFound:
		o.tracker.set(namespace, name, StateGone, "")
	case a.Kind == eviction.Lost:
		o.tracker.set(namespace, name, StateAnswerLost, a.Cause)
	case a.Kind == eviction.AdmissionRefused:
		o.tracker.set(namespace, name, StateFailed, admissionRefusedPrefix+a.Cause)
	case a.Kind == eviction.NamespaceTerminating:
		o.tracker.set(namespace, name, StateNamespaceTerminating, a.Cause)
	case a.Kind == eviction.Throttled:
		o.tracker.set(namespace, name, StateBlocked, throttledCause(a, o.nextWait(key)))
	case a.Retryable():
		o.tracker.set(namespace, name, StateBlocked, a.Cause+o.disruptedNote(key, name))
	case ctx.Err() != nil:
		o.tracker.stopped(namespace, name)
	default:
		o.tracker.set(namespace, name, StateFailed, a.Cause)
	}
}

// nextWait is the wait before the next eviction of pod key, as Evict
// computes it: the backoff of its refusals so far, or the server's
// Retry-After when longer.
func (o *evictionRecorder) nextWait(key string) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return max(o.backoff.delay(max(o.refused[key], 1)), o.retryAfter[key])
}

// throttledCause says that the API server throttled an eviction (a 429
// without a budget cause: API Priority and Fairness, or a proxy), with the
// wait asked for and the one before the next attempt.
func throttledCause(a eviction.Answer, next time.Duration) string {
	asked := "no Retry-After"
	if a.RetryAfter > 0 {
		asked = "Retry-After " + a.RetryAfter.String()
	}
	return fmt.Sprintf("throttled by the API server (HTTP 429, %s): next attempt in %s", asked, next)
}

// waitRetry waits up to max before retrying pod key, less if its PDB allows
// a disruption, and returns an error at once when ctx ends.
func (o *evictionRecorder) waitRetry(ctx context.Context, key string, max time.Duration) error {
	if max <= 0 {
		return nil
	}
	t := time.NewTimer(max)
	defer t.Stop()
	o.mu.Lock()
	pdb := ""
	if o.budgetRefused[key] {
		pdb = o.pdbOf[key]
	}
	o.mu.Unlock()
	for {
		allowed, changed := o.budgets.state(pdb)
		if allowed > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("eviction not retried: %w", context.Cause(ctx))
		case <-t.C:
			return nil
		case <-changed:
		}
	}
}

// disruptedNote explains a refusal by a budget that counts the pod itself
// as disrupted: an earlier eviction was admitted (the API server records the
// pod in status.disruptedPods before deleting it) but the pod was not
// deleted, as when the connection dropped mid-request.
func (o *evictionRecorder) disruptedNote(key, pod string) string {
	since, ok := o.budgets.disruptedSince(o.pdbOf[key], pod)
	if !ok {
		return ""
	}
	return fmt.Sprintf("; the budget counts this pod as disrupted since %s (status.disruptedPods: an admitted eviction whose delete did not happen) until the disruption controller drops it 2 min later",
		since.UTC().Format(time.TimeOnly)+"Z")
}
