package load

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Load balancer custom resources in manifests are read, not counted as
// unknown custom resources.
func TestManifestsLoadBalancerObjects(t *testing.T) {
	yaml := `apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata: {name: web-tg}
spec:
  serviceRef: {name: web, port: 80}
  targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/web/1
  targetType: ip
---
apiVersion: cloud.google.com/v1
kind: BackendConfig
metadata: {name: drain}
spec:
  connectionDraining: {drainingTimeoutSec: 45}
`
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: []string{"-"}, Namespace: "shop", Stdin: strings.NewReader(yaml)}, inv); err != nil {
		t.Fatal(err)
	}
	want := inspect.TargetGroupBinding{Namespace: "shop", Name: "web-tg", ServiceName: "web", TargetType: "ip"}
	if len(inv.TargetGroupBindings) != 1 || inv.TargetGroupBindings[0] != want {
		t.Errorf("TargetGroupBindings = %+v, want %+v", inv.TargetGroupBindings, want)
	}
	if inv.BackendConfigs["shop/drain"] != 45 {
		t.Errorf("BackendConfigs = %v", inv.BackendConfigs)
	}
	if len(inv.CustomResources) != 0 {
		t.Errorf("load balancer objects counted as unknown custom resources: %v", inv.CustomResources)
	}
}
