package ingress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// ServiceKind is the kind of the objects a Traefik ListWatch sends: one
// per load-balancer service of Traefik's running configuration, named as
// Traefik names it (NAMESPACE-SERVICE-PORT@kubernetes for an Ingress's
// backend), with its servers under "servers" (Servers reads them).
var ServiceKind = schema.GroupVersionKind{Group: "traefik.io", Version: "api", Kind: "Service"}

// Server is one server of a Traefik load-balancer service: a pod's
// address. Fenced is true for a terminating endpoint Traefik keeps but no
// longer picks for new requests (Traefik v3.3.0+, traefik/traefik#11101).
type Server struct {
	URL    string `json:"url"`
	Fenced bool   `json:"fenced,omitempty"`
}

// traefikService is the part of GET /api/http/services read here.
type traefikService struct {
	Name         string `json:"name"`
	LoadBalancer *struct {
		Servers []Server `json:"servers"`
	} `json:"loadBalancer"`
}

// TraefikListWatch lists and watches the load-balancer services of the
// Traefik whose API (api.insecure, the "traefik" entry point) is at base,
// e.g. http://10.0.0.1:9000. Traefik has no push interface: the watch
// polls GET /api/http/services every interval and sends what changed as
// ADDED, MODIFIED and DELETED events of ServiceKind objects, each with
// the resourceVersion of the poll that saw it. A poll that fails ends the
// watch with an ERROR event (listwatch.Stream opens a gap and resumes);
// a resourceVersion other than the last one sent is 410 Gone (re-list).
func TraefikListWatch(base string, interval time.Duration, client *http.Client) *cache.ListWatch {
	p := &poller{url: base + "/api/http/services?per_page=10000", client: client}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			snap, rv, err := p.poll(ctx)
			if err != nil {
				return nil, err
			}
			list := &unstructured.UnstructuredList{}
			list.SetResourceVersion(rv)
			for _, name := range sortedNames(snap) {
				list.Items = append(list.Items, *object(name, snap[name], rv))
			}
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return p.watch(ctx, o.ResourceVersion, interval)
		},
	}
}

// poller keeps the last snapshot read and its resourceVersion.
type poller struct {
	url    string
	client *http.Client
	mu     sync.Mutex
	last   map[string][]Server
	rv     int
}

// poll reads the API and returns its snapshot, with the resourceVersion
// bumped when it differs from the last one.
func (p *poller) poll(ctx context.Context) (map[string][]Server, string, error) {
	snap, err := p.read(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		return nil, "", err
	}
	if p.rv == 0 || !reflect.DeepEqual(snap, p.last) {
		p.last, p.rv = snap, p.rv+1
	}
	return snap, strconv.Itoa(p.rv), nil
}

func (p *poller) read(ctx context.Context) (map[string][]Server, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("reading Traefik's API: %v", err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("reading Traefik's API: %s from %s", resp.Status, p.url))
	}
	var svcs []traefikService
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&svcs); err != nil {
		return nil, fmt.Errorf("reading Traefik's API at %s: %w", p.url, err)
	}
	snap := map[string][]Server{}
	for _, s := range svcs {
		if s.LoadBalancer != nil {
			snap[s.Name] = s.LoadBalancer.Servers
		}
	}
	return snap, nil
}

// watch polls from resourceVersion rv until ctx ends or a poll fails.
func (p *poller) watch(ctx context.Context, rv string, interval time.Duration) (watch.Interface, error) {
	p.mu.Lock()
	from, cur := p.last, strconv.Itoa(p.rv)
	p.mu.Unlock()
	if rv != cur {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %s is not the last poll's (%s)", rv, cur))
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &pollWatch{out: make(chan watch.Event), cancel: cancel}
	go w.run(ctx, p, from, interval)
	return w, nil
}

// pollWatch is one watch's polling goroutine and its channel.
type pollWatch struct {
	out    chan watch.Event
	cancel context.CancelFunc
}

func (w *pollWatch) Stop()                          { w.cancel() }
func (w *pollWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *pollWatch) run(ctx context.Context, p *poller, from map[string][]Server, interval time.Duration) {
	defer close(w.out)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		snap, rv, err := p.poll(ctx)
		if err != nil {
			status := apierrors.NewServiceUnavailable(err.Error()).Status()
			w.send(ctx, watch.Event{Type: watch.Error, Object: &status})
			return
		}
		for _, ev := range diff(from, snap, rv) {
			if !w.send(ctx, ev) {
				return
			}
		}
		from = snap
	}
}

func (w *pollWatch) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// diff is the events that turn snapshot a into b, by service name.
func diff(a, b map[string][]Server, rv string) []watch.Event {
	var evs []watch.Event
	for _, name := range sortedNames(b) {
		old, had := a[name]
		switch {
		case !had:
			evs = append(evs, watch.Event{Type: watch.Added, Object: object(name, b[name], rv)})
		case !reflect.DeepEqual(old, b[name]):
			evs = append(evs, watch.Event{Type: watch.Modified, Object: object(name, b[name], rv)})
		}
	}
	for _, name := range sortedNames(a) {
		if _, kept := b[name]; !kept {
			evs = append(evs, watch.Event{Type: watch.Deleted, Object: object(name, a[name], rv)})
		}
	}
	return evs
}

func sortedNames(m map[string][]Server) []string { return slices.Sorted(maps.Keys(m)) }

// object is a ServiceKind object for Traefik service name.
func object(name string, servers []Server, rv string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetGroupVersionKind(ServiceKind)
	o.SetName(name)
	o.SetResourceVersion(rv)
	list := make([]any, 0, len(servers))
	for _, s := range servers {
		list = append(list, map[string]any{"url": s.URL, "fenced": s.Fenced})
	}
	o.Object["servers"] = list
	return o
}

// Servers reads the servers of a ServiceKind object; false for any other
// object.
func Servers(o runtime.Object) (name string, servers []Server, ok bool) {
	u, isU := o.(*unstructured.Unstructured)
	if !isU || u.GroupVersionKind() != ServiceKind {
		return "", nil, false
	}
	list, _, _ := unstructured.NestedSlice(u.Object, "servers")
	for _, item := range list {
		m, _ := item.(map[string]any)
		url, _ := m["url"].(string)
		fenced, _ := m["fenced"].(bool)
		servers = append(servers, Server{URL: url, Fenced: fenced})
	}
	return u.GetName(), servers, true
}

// StreamName names the Ingress controller's stream on gap lines and in
// listwatch.Notice.Stream.
const StreamName = "Ingress controller"

// Poll is how often Stream reads the API: Traefik has no push interface
// (docs/ingress.md), so its changes are seen up to this late.
const Poll = 100 * time.Millisecond

// Stream is the stream of the Traefik API at api (an http(s) URL): its
// load-balancer services and their servers, polled every Poll, each read
// given 2 s.
func Stream(api string) *listwatch.Stream {
	client := &http.Client{Timeout: 2 * time.Second}
	return &listwatch.Stream{Name: StreamName, LW: TraefikListWatch(strings.TrimSuffix(api, "/"), Poll, client)}
}
