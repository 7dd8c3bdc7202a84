#!/usr/bin/env bash
# make demo: the local cluster with the examples applied, and what
# kubectl graceful says about them. Run from the repository root.
set -euo pipefail
export KUBECONFIG="$PWD/_output/kubeconfig"
export PATH="$PWD/bin:$PATH"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "kubectl apply -f examples/"
kubectl apply -f examples/00-namespace.yaml >/dev/null
kubectl apply -f examples/
kubectl -n graceful-demo rollout status deploy --timeout=120s >/dev/null
kubectl -n graceful-demo get pods -o wide

step "kubectl graceful audit -n graceful-demo"
# Exit status 2 means findings at error severity: expected for the broken examples.
kubectl graceful audit -n graceful-demo || true

# watch pod: one naive and one hardened pod deleted under watch, each with its
# two-track timeline and verdict (exit status 2 = a risk was seen, expected
# for the naive pod; 0 = safe, expected for the hardened one).
watch_one() {
  local app=$1 pod
  pod=$(kubectl -n graceful-demo get pods -l "app=$app" --field-selector=status.phase=Running \
    -o jsonpath='{.items[0].metadata.name}')
  step "kubectl graceful watch pod $pod -n graceful-demo --delete"
  kubectl graceful watch pod "$pod" -n graceful-demo --delete --settle 2s && echo "(exit status 0)" \
    || echo "(exit status $?)"
}
watch_one naive
watch_one hardened

# watch TYPE/NAME: a rollout restart of the naive and the hardened Deployment
# at the same time, each followed to its end (every pod's window, the
# Service's ready endpoints against the replicas and the budget, the
# rollout's verdict), printed one after the other. Exit status 2 = a risk,
# expected for naive; 0 = safe, expected for hardened.
step "kubectl graceful watch deployment/naive --restart  |  kubectl graceful watch deployment/hardened --restart"
out=$(mktemp -d)
kubectl graceful watch deployment/naive -n graceful-demo --restart --settle 2s --timeout 5m >"$out/naive" 2>&1 &
naive=$!
kubectl graceful watch deployment/hardened -n graceful-demo --restart --settle 2s --timeout 5m >"$out/hardened" 2>&1 &
hardened=$!
naive_rc=0; wait "$naive" || naive_rc=$?
hardened_rc=0; wait "$hardened" || hardened_rc=$?
step "deployment/naive (exit status $naive_rc)"
cat "$out/naive"
step "deployment/hardened (exit status $hardened_rc)"
cat "$out/hardened"
rm -rf "$out"

# The node holding most demo pods: its preflight, then a drain bounded by
# --timeout (the maxUnavailable: 0 example blocks it; exit status 2), then
# the node is made schedulable again.
node=$(kubectl -n graceful-demo get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
	sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
step "kubectl graceful drain node $node --dry-run"
kubectl graceful drain node "$node" --ignore-daemonsets --dry-run || true
step "kubectl graceful drain node $node --timeout 30s"
kubectl graceful drain node "$node" --ignore-daemonsets --timeout 30s || true
kubectl uncordon "$node" >/dev/null
