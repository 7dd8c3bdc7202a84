package localcluster_test

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// kube-apiserver's default Service range is a /24: the 255th ClusterIP
// Service failed with "range is full". The local cluster's range holds
// thousands; 300 Services (more than a /24 has addresses) all get a
// ClusterIP inside it.
func TestMoreClusterIPServicesThanASlash24(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	const n = 300
	prefix := netip.MustParsePrefix(localcluster.ServiceCIDR)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		ips  = map[string]bool{}
	)
	sem := make(chan struct{}, 16)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i)},
				Spec: corev1.ServiceSpec{
					Selector: map[string]string{"app": "x"},
					Ports:    []corev1.ServicePort{{Port: 80}},
				},
			}
			got, err := env.Client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			ips[got.Spec.ClusterIP] = true
			if ip, err := netip.ParseAddr(got.Spec.ClusterIP); err != nil || !prefix.Contains(ip) {
				errs = append(errs, fmt.Errorf("%s: ClusterIP %q outside %s", got.Name, got.Spec.ClusterIP, prefix))
			}
		}(i)
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d Services failed, first: %v", len(errs), n, errs[0])
	}
	if len(ips) != n {
		t.Errorf("%d distinct ClusterIPs for %d Services", len(ips), n)
	}
}
