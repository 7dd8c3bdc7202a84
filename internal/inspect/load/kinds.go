package load

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// audited lists the built-in kinds inspect.Inventory.Add reads; others
// (ConfigMaps, Secrets, RBAC) are counted and never decoded.
var audited = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}:                     true,
	{Group: "apps", Kind: "StatefulSet"}:                    true,
	{Group: "apps", Kind: "DaemonSet"}:                      true,
	{Group: "apps", Kind: "ReplicaSet"}:                     true,
	{Group: "", Kind: "Pod"}:                                true,
	{Group: "batch", Kind: "Job"}:                           true,
	{Group: "batch", Kind: "CronJob"}:                       true,
	{Group: "", Kind: "Service"}:                            true,
	{Group: "policy", Kind: "PodDisruptionBudget"}:          true,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: true,
	{Group: "networking.k8s.io", Kind: "Ingress"}:           true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:      true,
}

// notAuditedUnparseable is the message of an object counted as not
// audited because it does not parse (inspect.Inventory.NotAudited).
const notAuditedUnparseable = "documents that do not parse, of kinds the audit does not read"

// wrapWhere prefixes err, when not nil, with where the object was read.
func wrapWhere(where string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	return nil
}
