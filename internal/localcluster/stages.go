package localcluster

import (
	"embed"
	"path"
	"sort"
	"strings"
)

//go:embed stages/*.yaml
var stageFiles embed.FS

// exitSecondsJQ computes, in kwok's jq (gojq), how many seconds after the
// delete request a pod's containers exit on their own: the annotation
// sim.graceful.test/exit-after (a Go duration such as "20s", "1m30s",
// "500ms"); else 1 s when sim.graceful.test/prestop-fails is "true" (the
// hook failed, so its delay never happened); else the longest preStop delay
// of the pod's containers plus 1 s. The preStop delay is the native
// sleep.seconds action, or the first `sleep N` in an exec hook's command
// (which covers `sleep 5`, `/bin/sleep 5`, `busybox sleep 5`, `sleep 5s` and
// `sh -c "... && sleep 5"`).
const exitSecondsJQ = `(` +
	`def dur: [scan("([0-9.]+)(ms|h|m|s)")] | map((.[0] | tonumber) * ({"ms": 0.001, "s": 1, "m": 60, "h": 3600}[.[1]])) | add // 0; ` +
	`def prestop: (.lifecycle.preStop // {}) as $h | if $h.sleep then ($h.sleep.seconds // 0) ` +
	`elif $h.exec then (($h.exec.command // []) | join(" ") | [scan("sleep +([0-9]+)")] | if length > 0 then (.[0][0] | tonumber) else 0 end) ` +
	`else 0 end; ` +
	`(.metadata.annotations["sim.graceful.test/exit-after"] // "") as $a | ` +
	`if $a != "" then ($a | dur) ` +
	`elif .metadata.annotations["sim.graceful.test/prestop-fails"] == "true" then 1 ` +
	`else ([.spec.containers[] | prestop] | max) + 1 end)`

// StagesYAML returns every kwok Stage the cluster runs, as one multi-document
// YAML file for `kwokctl -c`. kwokctl replaces all of its default stages with
// these, so the node stages (initialize, heartbeat) and the pod start stages
// are included beside the termination stages.
func StagesYAML() (string, error) {
	entries, err := stageFiles.ReadDir("stages")
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	docs := make([]string, 0, len(names))
	for _, n := range names {
		data, err := stageFiles.ReadFile(path.Join("stages", n))
		if err != nil {
			return "", err
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	// The placeholder is single-quoted in YAML; the expression holds no
	// single quote, so it can be substituted as is.
	return strings.ReplaceAll(strings.Join(docs, "\n---\n"), "__EXIT_SECONDS__", exitSecondsJQ) + "\n", nil
}
