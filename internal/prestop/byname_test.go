package prestop

import (
	"slices"
	"testing"
)

// pkill and killall are read as the shell runs them: their operands
// (options and their values skipped) and the sleeps before them.
func TestKillByName(t *testing.T) {
	for _, c := range []struct {
		cmd    []string
		stmt   string
		names  []string
		before int64
		exact  bool
	}{
		{[]string{"sh", "-c", "sleep 5; pkill -QUIT nginx"}, "pkill -QUIT nginx", []string{"nginx"}, 5, true},
		{[]string{"pkill", "-f", "-s", "TERM", "php-fpm: master"}, "pkill -f -s TERM php-fpm: master", []string{"php-fpm: master"}, 0, true},
		{[]string{"/bin/sh", "-c", "killall -u www -s QUIT php-fpm && sleep 3"}, "killall -u www -s QUIT php-fpm", []string{"php-fpm"}, 0, true},
		{[]string{"sh", "-c", "sleep 2; wget -q -O- localhost:8080/drain; sleep 1; killall app"}, "killall app", []string{"app"}, 3, false},
		{[]string{"sh", "-c", "while [ -e /tmp/busy ]; do sleep 1; done; pkill app"}, "pkill app", []string{"app"}, 1, false},
		{[]string{"sh", "-c", "kill -QUIT 1; sleep 2"}, "", nil, 0, false},
	} {
		stmt, names, before, exact := KillByName(c.cmd)
		if stmt != c.stmt || !slices.Equal(names, c.names) || before != c.before || exact != c.exact {
			t.Errorf("%q: %q %q %d %v, want %q %q %d %v", c.cmd, stmt, names, before, exact, c.stmt, c.names, c.before, c.exact)
		}
	}
}
