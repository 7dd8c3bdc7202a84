package prestop

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// HowExecStopsFirst: an exec shell script that stops the server (`nginx -s
// quit`, `kill 1`, a curl to /quitquitquit) before it sleeps. The server's
// listener closes at the start of the hook, while the pod is still an
// endpoint: only the sleeps before the stopping command delay anything,
// and they are the duration returned. The container often ends with its
// server, cutting the rest of the hook short.
const HowExecStopsFirst = "exec-stops-first"

// serverStop matches one command of a shell script that stops or tells to
// stop the process that serves: signals to a process (kill, pkill,
// killall, nginx -s quit|stop, apachectl/httpd -k stop|graceful-stop,
// haproxy -sf/-st, which ends the old process), service managers
// (supervisorctl, s6-svc -d, systemctl/service stop, caddy stop, pg_ctl
// stop, redis-cli shutdown) and admin requests to a quit or shutdown path
// (curl, wget). Each is matched on the command's words, so a comment
// or an echo naming them does not count.
var serverStop = []*regexp.Regexp{
	regexp.MustCompile(`^(kill|pkill|killall|killall5)( (-[A-Za-z0-9]*[A-Za-z1-9][A-Za-z0-9]*|-s [A-Z0-9]+|[^-0][^ ]*))+$`),
	regexp.MustCompile(`^(nginx|openresty)( .*)? -s *(quit|stop)\b`),
	regexp.MustCompile(`^(apachectl|apache2ctl|httpd|apache2)( .*)? (-k *)?(stop|graceful-stop)\b`),
	regexp.MustCompile(`^haproxy( .*)? -s[ft]\b`),
	regexp.MustCompile(`^(supervisorctl( .*)? stop|s6-svc( .*)? -d|systemctl( .*)? stop|service [^ ]+ stop|caddy stop|pg_ctl( .*)? stop|redis-cli( .*)? shutdown|php-fpm( .*)? -s *(quit|stop)|traefik( .*)? stop)\b`),
	regexp.MustCompile(`^(curl|wget)( .*)?/(quitquitquit|quit|shutdown|stop|kill|terminate|exit)\b`),
	// Envoy's admin /drain_listeners closes the listeners at once unless
	// asked for its graceful drain period (deckhouse/deckhouse#22068).
	regexp.MustCompile(`^(curl|wget)( .*)?/drain_listeners([?&](inboundonly|skip_exit))*\b( .*)?$`),
}

// ServerStopPatterns returns the regular expressions (Go syntax) that tell
// a command stopping the server, matched against a statement's words
// joined by spaces, the command's base name first and quotes trimmed from
// each word: the local cluster's termination Stages read preStop scripts
// with the same patterns.
func ServerStopPatterns() []string {
	out := make([]string, len(serverStop))
	for i, re := range serverStop {
		out[i] = re.String()
	}
	return out
}

// ShellKeywords returns the words that start a compound command or a
// loop's body, which the reading of a script skips to reach the command
// that runs (shellKeyword), for the local cluster's Stages.
func ShellKeywords() []string {
	return slices.Sorted(maps.Keys(shellKeyword))
}

// stopCommand returns the first statement of a shell script's statements
// (split on &&, ||, ;, | and newlines) that stops the server before any
// sleep or with a sleep after it, with the seconds slept before it, or ""
// when there is none: a stop after the sleeps and none after it is the
// right order (sleep first, then stop).
func stopCommand(stmts [][]string) (cmd string, before int64) {
	for i, f := range stmts {
		if base(f[0]) == "sleep" {
			s, _ := sleepArgs(f[1:])
			before += s
			continue
		}
		if stopsServer(f) && (before == 0 || slices.ContainsFunc(stmts[i+1:], func(g []string) bool { return base(g[0]) == "sleep" })) {
			return strings.Join(f, " "), before
		}
	}
	return "", 0
}

// stopsServer reports whether the statement's words stop the server.
func stopsServer(f []string) bool {
	words := append([]string{base(f[0])}, f[1:]...)
	for i, w := range words {
		words[i] = strings.Trim(w, `"'`)
	}
	line := strings.Join(words, " ")
	return slices.ContainsFunc(serverStop, func(re *regexp.Regexp) bool { return re.MatchString(line) })
}

// StopCommand returns the command of a container's exec preStop script
// that stops its server before the script sleeps, "" when there is none
// (see HowExecStopsFirst).
func StopCommand(command []string) string {
	args, script, ok := unwrap(command)
	switch {
	case len(args) == 0:
		return ""
	case ok:
		cmd, _ := stopCommand(statements(script))
		return cmd
	}
	if stopsServer(args) { // exec ["curl", "-XPOST", "http://localhost:2019/stop"]
		return strings.Join(args, " ")
	}
	return ""
}

// shellKeyword lists the words that start a compound command or a loop's
// body: the simple command after them is what runs.
var shellKeyword = map[string]bool{"while": true, "until": true, "do": true, "if": true, "then": true, "else": true, "elif": true, "{": true, "(": true, "!": true, "exec": true, "time": true}

// statements splits a shell script into its simple commands' words, on
// `&&`, `||`, `;`, `|` and newlines, dropping a leading busybox.
func statements(script string) [][]string {
	r := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n")
	var out [][]string
	for _, stmt := range strings.Split(r.Replace(script), "\n") {
		f := strings.Fields(stmt)
		for len(f) > 1 && shellKeyword[f[0]] {
			f = f[1:]
		}
		if len(f) > 1 && base(f[0]) == "busybox" {
			f = f[1:]
		}
		if len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out
}
