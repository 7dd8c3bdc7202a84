package localcluster

import (
	"embed"
	"encoding/json"
	"path"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

//go:embed stages/*.yaml
var stageFiles embed.FS

// preStopSecondsJQ defines, in kwok's jq (gojq), `prestop`: the seconds a
// container's preStop hook delays SIGTERM, read the way pkg/prestop reads
// it (a test runs both on every form pkg/prestop knows): the native
// sleep.seconds action; an exec `sleep ARGS...` (also /bin/sleep, busybox
// sleep), each argument a decimal number with an optional s, m, h or d
// suffix, summed and rounded up to whole seconds; a `sh|bash|ash|dash|zsh
// -c SCRIPT` whose statements (split on &&, ||, ;, | and newlines, shell
// keywords and a leading busybox dropped, comments skipped) include
// sleeps, summed, up to a command that stops the server when a sleep
// follows it or no sleep comes before it (prestop.ServerStopPatterns: the
// server, and with it the container, ends there); a script with a loop
// (prestop.LoopPattern) has no length. Hooks whose duration cannot be read from the
// spec (other exec commands, httpGet) count as 0 s, as does a tcpSocket
// hook.
var preStopSecondsJQ = `def gbase: sub("^.*/"; ""); ` +
	`def sleeparg: (gsub("^[\"']+|[\"']+$"; "") ` +
	`| capture("^(?<n>[0-9]+\\.?[0-9]*|\\.[0-9]+)(?<u>[smhd]?)$") ` +
	`| (.n | if startswith(".") then "0" + . else . end | if endswith(".") then . + "0" else . end | tonumber) as $f ` +
	`| if $f > 1e9 then null else $f * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[.u] end) // null; ` +
	`def sleepsecs: if length == 0 then null else map(sleeparg) as $s ` +
	`| if ($s | map(. == null) | any) then null else ($s | add | ceil) end end; ` +
	`def unkw: if length > 1 and (.[0] as $w | ` + jqStrings(prestop.ShellKeywords()) + ` | any(.[]; . == $w)) then (.[1:] | unkw) else . end; ` +
	`def stops: (.[0] |= gbase) | map(gsub("^[\"']+|[\"']+$"; "")) | join(" ") as $l ` +
	`| any(` + jqStrings(prestop.ServerStopPatterns()) + `[]; . as $p | $l | test($p)); ` +
	`def issleep: (.[0] | gbase) == "sleep"; ` +
	`def script: if test(` + jqStrings([]string{prestop.LoopPattern()}) + `[0]) then null else [gsub("&&|\\|\\||;|\\|"; "\n") | split("\n")[] | [splits("[\\s\\v\\x{85}\\p{Z}]+")] | map(select(. != "")) ` +
	`| unkw | select(length > 0) | if (.[0] | gbase) == "busybox" and length > 1 then .[1:] else . end ` +
	`| select(.[0] | startswith("#") | not)] as $st ` +
	`| ([range(0; $st | length) | select(. as $i | ($st[$i] | stops) and ($st[$i + 1:] | any(.[]; issleep)))] | first // null) as $cut ` +
	`| (if $cut == null then $st else $st[:$cut] end) ` +
	`| map(select(issleep) | .[1:] | sleepsecs) as $s ` +
	`| if ($s | length) == 0 or ($s | map(. == null) | any) then null else ($s | add) end end; ` +
	`def execsecs: if length == 0 then null else (if (.[0] | gbase) == "busybox" then .[1:] else . end) as $a ` +
	`| if ($a | length) == 0 then null ` +
	`elif ($a[0] | gbase) == "sleep" then $a[1:] | sleepsecs ` +
	`elif ["sh", "bash", "ash", "dash", "zsh"] | map(. == ($a[0] | gbase)) | any ` +
	`then ($a[1:] as $r | first(range(0; $r | length) | select(. + 1 < ($r | length) and ($r[.] | startswith("-") and endswith("c"))) | $r[. + 1]) // null) ` +
	`| if . == null then null else script end ` +
	`else null end end; ` +
	`def prestop: (.lifecycle.preStop // {}) as $h | if $h.sleep then ($h.sleep.seconds // 0) ` +
	`elif $h.exec then ((($h.exec.command // []) | execsecs) // 0) ` +
	`else 0 end; `

// jqStrings is a list of strings as a jq array literal.
func jqStrings(list []string) string {
	b, err := json.Marshal(list)
	if err != nil {
		panic(err) // a []string always marshals
	}
	return string(b)
}

// exitSecondsJQ computes how many seconds after the delete request a pod's
// containers exit on their own: the annotation sim.ExitAfter (a Go
// duration such as "20s", "1m30s", "500ms"); else 1 s when sim.PreStopFails
// is "true" (the hook failed, so its delay never happened); else the
// longest preStop delay of the pod's containers (preStopSecondsJQ) plus 1 s.
var exitSecondsJQ = `(` + preStopSecondsJQ +
	`def dur: [scan("([0-9.]+)(ms|h|m|s)")] | map((.[0] | tonumber) * ({"ms": 0.001, "s": 1, "m": 60, "h": 3600}[.[1]])) | add // 0; ` +
	`(.metadata.annotations["` + sim.ExitAfter + `"] // "") as $a | ` +
	`if $a != "" then ($a | dur) ` +
	`elif .metadata.annotations["` + sim.PreStopFails + `"] == "true" then 1 ` +
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
	// ReadDir sorts the entries by name.
	docs := make([]string, 0, len(entries))
	for _, e := range entries {
		data, err := stageFiles.ReadFile(path.Join("stages", e.Name()))
		if err != nil {
			return "", err
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	// The placeholder sits in single-quoted YAML scalars, where a single
	// quote is written twice.
	quoted := strings.ReplaceAll(exitSecondsJQ, "'", "''")
	return strings.ReplaceAll(strings.Join(docs, "\n---\n"), "__EXIT_SECONDS__", quoted) + "\n", nil
}
