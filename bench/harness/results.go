package harness

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// RunInfo is what bench/RESULTS.md records about a run besides the table.
type RunInfo struct {
	Date    time.Time
	Scale   string
	Cores   int
	Memory  string
	Commit  string
	Load    string
	Machine string
}

// Machine describes this machine and checkout for a run started at started.
func Machine(repoRoot string, started time.Time, scale string) RunInfo {
	info := RunInfo{Date: started, Scale: scale, Cores: runtime.NumCPU(), Memory: "unknown", Commit: "unknown", Load: "unknown",
		Machine: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb int64
			if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
				info.Memory = fmt.Sprintf("%.1f GB", float64(kb)/1e6*1.024)
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		info.Load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	cmd := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12")
	cmd.Dir = repoRoot
	if out, err := cmd.Output(); err == nil {
		info.Commit = strings.TrimSpace(string(out))
	}
	return info
}

// WriteResults writes a run's header and table as Markdown.
func WriteResults(w io.Writer, info RunInfo, rows []Row) {
	fmt.Fprintf(w, "## %s, %s scale\n\n", info.Date.Format("2006-01-02 15:04 MST"), info.Scale)
	fmt.Fprintf(w, "- machine: %s, %d cores, %s memory; load average at start %s\n", info.Machine, info.Cores, info.Memory, info.Load)
	fmt.Fprintf(w, "- commit: %s\n\n", info.Commit)
	PrintMarkdown(w, rows)
}
