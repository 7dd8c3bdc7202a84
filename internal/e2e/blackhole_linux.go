package e2e

import (
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

// BlackHole returns a loopback address ("127.0.0.1:PORT") whose connection
// attempts are never answered, as a server behind a firewall that drops
// packets: a socket listening with a backlog of 0 whose accept queue is
// filled by one connection nobody accepts, so Linux drops every later SYN
// and a client waits for its dial timeout. Closed when the test ends.
func BlackHole(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	// The one connection the accept queue holds; the next must not get through.
	filler, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("filling the accept queue of %s: %v", addr, err)
	}
	t.Cleanup(func() { filler.Close() })
	if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections: not a black hole", addr)
	}
	return addr
}
