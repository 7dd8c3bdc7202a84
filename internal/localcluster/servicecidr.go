package localcluster

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceCIDR is the range ClusterIPs are allocated from. kube-apiserver's
// default (10.0.0.0/24, 254 addresses) is too small for fixtures with
// thousands of ClusterIP Services. The range only exists inside the API:
// nothing on the machine routes or listens on it (there is no kube-proxy).
const ServiceCIDR = "10.96.0.0/16"

// defaultServiceCIDRName is the ServiceCIDR object (networking.k8s.io/v1)
// kube-apiserver creates from its --service-cluster-ip-range flag at first
// start. The object is immutable: a server restarted with another flag keeps
// allocating from the old range, so a cluster made before the range changed
// has to be recreated.
const defaultServiceCIDRName = "kubernetes"

// serviceCIDRArgs are the flags (name, value) that give both components
// that read the range the same value: kube-apiserver allocates ClusterIPs
// from it, kube-controller-manager must agree on it.
func serviceCIDRArgs() [][2]string {
	return [][2]string{{"service-cluster-ip-range", ServiceCIDR}}
}

// serviceCIDRCurrent returns nil when the running cluster behind kubeconfig
// allocates ClusterIPs from ServiceCIDR, and an error saying what it has
// otherwise (a cluster made by an older checkout).
func serviceCIDRCurrent(ctx context.Context, kubeconfig string) error {
	cs, err := Client(kubeconfig)
	if err != nil {
		return err
	}
	sc, err := cs.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if slices.Contains(sc.Spec.CIDRs, ServiceCIDR) {
		return nil
	}
	return fmt.Errorf("Service CIDR %v, want %s", sc.Spec.CIDRs, ServiceCIDR)
}
