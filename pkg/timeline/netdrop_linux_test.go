package timeline_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// netDrop is a test's own network fault: an nftables table of its own
// that drops the machine's new connections to one address and port (their
// SYNs), as a firewall or a lost route does, before conntrack and
// kube-proxy's DNAT see them (a filter chain on the output hook at
// priority raw). Connections set up before it go on: a request on one
// either ends before the drop or not at all, never half-answered. It is not
// the machine guard (realnode.GuardTable): the guard's count stays as it
// was, and e2e.GuardUntouched still holds.
type netDrop struct {
	table, ip string
	port      int
}

// netDropChain is the table's one chain, whose rule counts what it drops.
const netDropChain = "out"

// dropTo returns the drop of the new connections to ip:port, off until On; the
// route to ip is checked first (realnode.CheckRoute: it must stay on the
// machine), and the table is deleted when the test ends.
func dropTo(t testing.TB, ip string, port int) *netDrop {
	t.Helper()
	if err := realnode.CheckRoute(ip); err != nil {
		t.Fatalf("not dropping packets to %s: %v", ip, err)
	}
	d := &netDrop{table: fmt.Sprintf("kubectl-graceful-test-drop-%d", os.Getpid()), ip: ip, port: port}
	t.Cleanup(func() { _ = d.off() })
	return d
}

// On starts dropping.
func (d *netDrop) On(t testing.TB) {
	t.Helper()
	rules := fmt.Sprintf("table ip %s {\n chain %s {\n  type filter hook output priority raw; policy accept;\n  ip daddr %s tcp dport %d tcp flags & (syn | ack) == syn counter drop\n }\n}\n",
		d.table, netDropChain, d.ip, d.port)
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("nft: %v: %s", err, out)
	}
}

// Off stops dropping and returns how many SYNs were dropped.
func (d *netDrop) Off(t testing.TB) int64 {
	t.Helper()
	byChain, err := realnode.TablePackets("ip", d.table)
	if err != nil {
		t.Errorf("reading the drop's counter: %v", err)
	}
	if err := d.off(); err != nil {
		t.Errorf("deleting table ip %s: %v", d.table, err)
	}
	return byChain[netDropChain]
}

// off deletes the table, if it is there.
func (d *netDrop) off() error {
	if exec.Command("nft", "list", "table", "ip", d.table).Run() != nil {
		return nil
	}
	out, err := exec.Command("nft", "delete", "table", "ip", d.table).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}
