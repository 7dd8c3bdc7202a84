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
	}{
		{[]string{"sh", "-c", "sleep 5; pkill -QUIT nginx"}, "pkill -QUIT nginx", []string{"nginx"}, 5},
		{[]string{"pkill", "-f", "-s", "TERM", "php-fpm: master"}, "pkill -f -s TERM php-fpm: master", []string{"php-fpm: master"}, 0},
		{[]string{"/bin/sh", "-c", "killall -u www -s QUIT php-fpm && sleep 3"}, "killall -u www -s QUIT php-fpm", []string{"php-fpm"}, 0},
		{[]string{"sh", "-c", "kill -QUIT 1; sleep 2"}, "", nil, 0},
	} {
		stmt, names, before := KillByName(c.cmd)
		if stmt != c.stmt || !slices.Equal(names, c.names) || before != c.before {
			t.Errorf("%q: %q %q %d, want %q %q %d", c.cmd, stmt, names, before, c.stmt, c.names, c.before)
		}
	}
}
