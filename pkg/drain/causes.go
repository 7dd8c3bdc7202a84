package drain

import (
	"errors"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// EvictionCause returns why the API server refused an eviction, for a
// person: the messages of the DisruptionBudget causes in the Status details
// ("The disruption budget web needs 2 healthy pods and has 2 currently"),
// which kubectl does not print, joined with "; ", or the error's message
// when it carries none.
func EvictionCause(err error) string {
	if err == nil {
		return ""
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil {
			var msgs []string
			for _, c := range d.Causes {
				if c.Type == policyv1.DisruptionBudgetCause && c.Message != "" {
					msgs = append(msgs, c.Message)
				}
			}
			if len(msgs) > 0 {
				return strings.Join(msgs, "; ")
			}
		}
	}
	return err.Error()
}
