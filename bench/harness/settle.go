package harness

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Settling before a timed comparison: right after a fixture is filled (or
// the fleet's sibling clusters are stopped) the control plane's
// controllers keep the machine's cores busy for a while (the load average
// was 12-14 on 2 cores at the large run's 1,000-pod step), and a
// comparison of two programs that share those cores then measures the
// scheduler more than either program.
const (
	// settleIdle is the share of the machine's CPU time that must be idle
	// over one settleWindow: at least one core's worth on 2 cores.
	settleIdle = 0.5
	// settleWindow is one sample of /proc/stat.
	settleWindow = time.Second
	// settleMax bounds the wait; past it the comparison runs anyway and the
	// log says how idle the machine was.
	settleMax = 90 * time.Second
)

// settle waits until the machine is at least settleIdle idle over one
// settleWindow, or settleMax passes, and logs the wait for what.
func (h *harness) settle(ctx context.Context, what string) {
	if h.cfg.NoSettle {
		h.logf("%s: measuring without waiting for the machine to settle", what)
		return
	}
	start := time.Now()
	idle, err := 0.0, error(nil)
	for time.Since(start) < settleMax && ctx.Err() == nil {
		if idle, err = idleShare(settleWindow); err != nil || idle >= settleIdle {
			break
		}
	}
	waited := time.Since(start).Round(100 * time.Millisecond)
	if err != nil {
		h.logf("%s: cannot tell how busy the machine is (%v); measuring after %s", what, err, waited)
		return
	}
	h.logf("%s: waited %s for the machine to settle (%.0f%% idle)", what, waited, 100*idle)
}

// idleShare returns the share of CPU time the machine spent idle (idle
// and iowait, all cores) over window, from /proc/stat's "cpu" line.
func idleShare(window time.Duration) (float64, error) {
	idle0, total0, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	time.Sleep(window)
	idle1, total1, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	if total1 <= total0 {
		return 0, fmt.Errorf("/proc/stat did not advance")
	}
	return float64(idle1-idle0) / float64(total1-total0), nil
}

// cpuTimes returns the idle (idle + iowait) and total jiffies of all
// cores since boot.
func cpuTimes() (idle, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	// user nice system idle iowait irq softirq steal; guest and
	// guest_nice, when present, are already counted in user and nice.
	for i, f := range fields[1:min(len(fields), 9)] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %v", err)
		}
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, total, nil
}
