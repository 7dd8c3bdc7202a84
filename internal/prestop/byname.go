package prestop

import "strings"

// killByNameValue are the options of pkill and killall that take a value
// as the next word (procps pkill(1), psmisc killall(1)): the signal, the
// users, groups, parents, terminals, pid file, age and namespaces.
var killByNameValue = map[string]bool{"-s": true, "--signal": true, "-u": true, "-U": true, "-g": true, "-G": true,
	"-P": true, "-t": true, "-F": true, "--pidfile": true, "--ns": true, "--nslist": true, "-o": true, "-y": true,
	"--older-than": true, "--younger-than": true, "--user": true}

// KillByName returns the first statement of an exec preStop command that
// signals processes by name (pkill, killall: every process of the PID
// namespace whose name, or with `pkill -f` whole command line, matches),
// the names or patterns it gives, and the seconds its script sleeps
// before it, exact when only sleeps come before it; "" when there is none.
// In a pod that shares its process namespace those are the processes of
// every container.
func KillByName(command []string) (stmt string, names []string, before int64, exact bool) {
	args, script, ok := unwrap(command)
	stmts := [][]string{args}
	if ok {
		stmts = statements(script)
	}
	exact = true
	for _, f := range stmts {
		if len(f) == 0 {
			continue
		}
		switch b := base(f[0]); b {
		case "sleep":
			s, ok := sleepArgs(f[1:])
			before, exact = before+s, exact && ok
		case "pkill", "killall":
			return strings.Join(f, " "), killNames(f[1:]), before, exact
		default:
			exact = false
		}
	}
	return "", nil, 0, false
}

// killNames are the operands of pkill's or killall's words f: what is not
// an option or an option's value.
func killNames(f []string) []string {
	var out []string
	for i := 0; i < len(f); i++ {
		w := strings.Trim(f[i], `"'`)
		switch {
		case killByNameValue[w]:
			i++
		case strings.HasPrefix(w, "-"):
		case w != "":
			out = append(out, w)
		}
	}
	return out
}
