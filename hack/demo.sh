#!/usr/bin/env bash
# make demo: the local cluster with the examples applied, and what
# kubectl graceful says about them. Run from the repository root.
set -euo pipefail
export KUBECONFIG="$PWD/_output/kubeconfig"
export PATH="$PWD/bin:$PATH"

# step TITLE WHAT: a section's title (the command it runs, in bold) and
# one line saying what it shows and what to look for.
step() { printf '\n\033[1m== %s\033[0m\n%s\n' "$1" "$2"; }

# pods NS: the namespace's pods, one line an app: how many, their phase
# and their nodes.
pods() {
  kubectl -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.labels.app} {.status.phase} {.spec.nodeName}{"\n"}{end}' |
    awk '{ k = $1; n[k]++; ph[k] = (ph[k] == "" || ph[k] == $2) ? $2 : "mixed phases"
           if (!((k, $3) in seen)) { seen[k, $3] = 1; nodes[k] = nodes[k] (nodes[k] == "" ? "" : ", ") $3 } }
         END { for (k in n) printf "%-13s %d pod(s) %s on %s\n", k, n[k], ph[k], nodes[k] }' | sort
}

step "kubectl apply -f examples/" \
  "Workloads with the usual mistakes (no preStop, a long preStop, one replica, a budget allowing nothing), on kwok."
kubectl apply -f examples/00-namespace.yaml >/dev/null
kubectl apply -f examples/ >/dev/null
kubectl -n graceful-demo rollout status deploy --timeout=120s >/dev/null
pods graceful-demo

skip=min-ready-seconds-zero,prefer-native-sleep,pdb-unhealthy-eviction-policy,pdb-missing
step "kubectl graceful audit -n graceful-demo --skip ...   (its 3 info-level checks and pdb-missing)" \
  "Each workload's termination settings checked: look at SEVERITY error, and the CHECK that names the fix."
# Exit status 2 means findings at error severity: expected for the broken
# examples. The info-level checks, and pdb-missing (the drain below shows
# what budgets do), are skipped to keep the demo short.
kubectl graceful audit -n graceful-demo --skip "$skip" || true

# watch: on the real nodes (real-node-0 and real-node-1: real kubelets,
# containerd and kube-proxy, docs/real-node.md) when the cluster has them, with requests
# really sent to each Service's ClusterIP through kube-proxy's rules;
# otherwise through the SIMULATED data plane, labelled as such.
# Exit status 2 = a risk was seen, expected for naive; 0 = safe, expected for
# hardened.
real_node_ready() {
  local n
  for n in real-node-0 real-node-1; do
    [ "$(kubectl get node "$n" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] || return 1
  done
}

# The real Ingress controller (Traefik, docs/ingress.md), when make ingress
# built it and cluster-up started it: its API and the address it serves on.
ingress_api=http://10.244.0.250:9000
ingress_log=/var/lib/kubectl-graceful-node/logs/traefik-access.log
ingress_up() { curl -sf -m 2 "$ingress_api/api/version" >/dev/null 2>&1; }

# watch_real APP: one pod of APP deleted under watch, probed through the
# Ingress controller (whose API the watch reads) when it runs, else at the
# Service's ClusterIP through kube-proxy.
watch_real() {
  local app=$1 pod ip url via=(--probe-rate 100)
  ip=$(kubectl -n graceful-real get svc "$app" -o jsonpath='{.spec.clusterIP}')
  url="http://$ip/"
  pod=$(kubectl -n graceful-real get pods -l "app=$app" --field-selector=status.phase=Running \
    -o jsonpath='{.items[0].metadata.name}')
  if ingress_up; then
    ip=10.244.0.250 url="http://10.244.0.250/$app" via+=(--ingress-api "$ingress_api")
    # Its JSON access log says where it sent each failed request.
    [ -r "$ingress_log" ] && via+=(--probe-access-log "$ingress_log")
    # Until the proxy serves the demo's Ingress (applied just before).
    for _ in $(seq 30); do curl -sf -m 1 -o /dev/null "$url" && break; sleep 0.5; done
    step "kubectl graceful watch pod $pod -n graceful-real --delete --probe ... --ingress-api ..." \
      "One $app pod deleted on a real node, requests through the real Ingress controller (Traefik): its 502s, its own view."
  else
    echo "note: no Ingress controller here (make ingress builds Traefik once, about 12 min): requests go through kube-proxy only."
    step "kubectl graceful watch pod $pod -n graceful-real --delete --probe ..." \
      "One $app pod deleted on a real node, requests sent to its Service meanwhile: the verdict says whether it raced."
  fi
  _output/cluster route "$ip"
  kubectl graceful watch pod "$pod" -n graceful-real --delete --settle 2s --probe "$url" "${via[@]}" \
    && echo "(exit status 0)" || echo "(exit status $?)"
}

# drain_real: real-node-0 drained under --watch while the demo's own loops
# send requests to both Services' ClusterIPs (hack/cluster requests: every
# 10 ms, bounded); their counts are printed after, failures by cause and
# the first and last on the drain's clock (seconds since it started). The evicted pods' replacements
# land on real-node-1. The node is made schedulable again right after.
drain_real() {
  local out rc=0 loop_naive loop_hardened via=()
  ingress_up && via=(--ingress-api "$ingress_api") # the proxy's own timing
  out=$(mktemp -d)
  _output/cluster requests naive "$(kubectl -n graceful-real get svc naive -o jsonpath='{.spec.clusterIP}')" "$out/t0" >"$out/naive" 2>&1 &
  loop_naive=$!
  _output/cluster requests hardened "$(kubectl -n graceful-real get svc hardened -o jsonpath='{.spec.clusterIP}')" "$out/t0" >"$out/hardened" 2>&1 &
  loop_hardened=$!
  sleep 1
  step "kubectl graceful drain node real-node-0 --ignore-daemonsets --watch" \
    "A real drain under watch while the demo sends its own requests: the verdict should name naive, not hardened."
  date +%s%3N >"$out/t0"
  kubectl graceful drain node real-node-0 --ignore-daemonsets --watch --timeout 3m "${via[@]}" || rc=$?
  echo "(exit status $rc)"
  printf 'the demo makes real-node-0 schedulable again: kubectl graceful uncordon real-node-0: '
  kubectl graceful uncordon real-node-0
  sleep 2
  kill -INT "$loop_naive" "$loop_hardened"
  wait "$loop_naive" "$loop_hardened" || true
  step "the demo's own requests during the drain" \
    "Counted by the demo itself, not by the plugin: naive should lose requests, hardened none."
  cat "$out/naive" "$out/hardened"
  rm -rf "$out"
}

# watch_one APP: the same through the SIMULATED data plane (hack/dataplane: a
# load balancer on 127.0.0.1 that follows the Service's EndpointSlices 1 s
# late, one local backend per pod; kwok runs no process).
watch_one() {
  local app=$1 pod dp url
  pod=$(kubectl -n graceful-demo get pods -l "app=$app" --field-selector=status.phase=Running \
    -o jsonpath='{.items[0].metadata.name}')
  dp=$(mktemp)
  _output/dataplane -n graceful-demo -service "$app" -propagation 1s >"$dp" 2>"$dp.err" &
  local dp_pid=$!
  for _ in $(seq 50); do url=$(head -n1 "$dp"); [ -n "$url" ] && break; sleep 0.1; done
  step "kubectl graceful watch pod $pod -n graceful-demo --delete --probe ...   (SIMULATED data plane)" \
    "One $app pod deleted on a kwok node, a simulated load balancer 1 s behind its EndpointSlices: did it race?"
  cat "$dp.err"
  kubectl graceful watch pod "$pod" -n graceful-demo --delete --settle 2s --probe "$url" \
    && echo "(exit status 0)" || echo "(exit status $?)"
  kill "$dp_pid"; wait "$dp_pid" 2>/dev/null || true
  rm -f "$dp" "$dp.err"
}

# rollouts_simulated: the rollout restarts on the kwok nodes, without probe.
rollouts_simulated() {
  local out naive hardened naive_rc=0 hardened_rc=0
  step "kubectl graceful watch deployment/naive --restart  |  ... deployment/hardened" \
    "Both rolled out at once on the kwok nodes: the rollout verdicts say which one raced its endpoints."
  out=$(mktemp -d)
  kubectl graceful watch deployment/naive -n graceful-demo --restart --settle 2s --timeout 5m >"$out/naive" 2>&1 &
  naive=$!
  kubectl graceful watch deployment/hardened -n graceful-demo --restart --settle 2s --timeout 5m >"$out/hardened" 2>&1 &
  hardened=$!
  wait "$naive" || naive_rc=$?
  wait "$hardened" || hardened_rc=$?
  step "deployment/naive (exit status $naive_rc)" "Its rollout, pod by pod, then its verdict."
  cat "$out/naive"
  step "deployment/hardened (exit status $hardened_rc)" "Its rollout, pod by pod, then its verdict."
  cat "$out/hardened"
  rm -rf "$out"
}

# The real nodes: where this machine can run them and they are not up,
# `make real-node-deps` installs what they need (root and apt-get), then
# `make cluster-up` starts them; elsewhere one line says what to run.
if [ "${GRACEFUL_NO_REAL_NODES:-}" = 1 ]; then
  echo "note: GRACEFUL_NO_REAL_NODES=1: no real nodes; going on with the kwok nodes."
elif ! real_node_ready; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Setting up the real nodes: make real-node-deps (Debian packages), then make cluster-up"
    make --no-print-directory real-node-deps && go run ./hack/cluster up >/dev/null || true
  else
    echo "note: no real nodes here; as root on Debian or Ubuntu, run: make real-node-deps cluster-up (docs/real-node.md). Going on with the kwok nodes."
  fi
fi

if real_node_ready; then
  go build -o _output/cluster ./hack/cluster
  step "kubectl apply -f examples/real-node/" \
    "naive (no preStop) and hardened (preStop, readiness, a budget) as real containers on real-node-0 and real-node-1."
  kubectl apply -f examples/real-node/00-namespace.yaml >/dev/null
  kubectl apply -f examples/real-node/naive.yaml -f examples/real-node/hardened.yaml >/dev/null
  # Their Ingresses only where their controller runs: unserved, an Ingress
  # only adds a note to every verdict that its timing is not read.
  if ingress_up; then
    kubectl apply -f examples/real-node/ingress.yaml >/dev/null
  else
    kubectl delete --ignore-not-found -f examples/real-node/ingress.yaml >/dev/null
  fi
  # An earlier demo drained real-node-0 and uncordoning moves nothing back:
  # an app with no pod there is restarted, so that the drain evicts both.
  for app in naive hardened; do
    kubectl -n graceful-real get pods -l "app=$app" -o jsonpath='{.items[*].spec.nodeName}' | grep -q real-node-0 ||
      kubectl -n graceful-real rollout restart "deploy/$app" >/dev/null
  done
  kubectl -n graceful-real rollout status deploy --timeout=120s >/dev/null
  for _ in $(seq 60); do # the old pods' preStop, at most 60 s
    [ -z "$(kubectl -n graceful-real get pods -o jsonpath='{.items[?(@.metadata.deletionTimestamp)].metadata.name}')" ] && break
    sleep 1
  done
  pods graceful-real
  watch_real naive
  drain_real
else
  echo "note: no real node in this cluster (make cluster-up says why): the watch runs against kwok's simulated kubelet and a SIMULATED data plane"
  go build -o _output/dataplane ./hack/dataplane
  watch_one naive
  watch_one hardened
  rollouts_simulated
fi

# The node holding most demo pods: its preflight, which the
# maxUnavailable: 0 example blocks (exit status 2). The drain itself, the
# real one above, is not repeated on the kwok nodes.
node=$(kubectl -n graceful-demo get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
	sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
step "kubectl graceful drain node $node --ignore-daemonsets --dry-run=client" \
  "The preflight alone on the busiest kwok node: what would block (the budget that allows nothing) and why."
kubectl graceful drain node "$node" --ignore-daemonsets --dry-run=client || true
printf '\n\033[1m== What this showed\033[0m\n'
echo "audit found the settings that drop requests; watch and drain --watch saw the race they cause on real nodes,"
echo "and the demo's own requests agreed; the preflight named what a budget blocks before anything changed."
echo "More: README.md, docs/watch.md, docs/drain.md; watch deployment/NAME --restart: docs/watch-rollout.md."
