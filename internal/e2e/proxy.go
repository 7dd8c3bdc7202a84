package e2e

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// CutProxy is a loopback TCP proxy to the API server that the test can cut:
// every open connection is closed and new ones are refused for a while, as
// when a load balancer or a VPN drops long-lived watches. It can also
// pause: connections stay open but what the server sends is held back for
// a while, as when a watch stalls.
type CutProxy struct {
	ln          net.Listener
	target      string
	mu          sync.Mutex
	conns       []net.Conn
	downUntil   time.Time
	pausedUntil time.Time
	// accepted counts the connections accepted, refused ones included.
	accepted int
}

func newCutProxy(t *testing.T, target string) *CutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &CutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.Cut(0) })
	go p.serve()
	return p
}

func (p *CutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		down := time.Now().Before(p.downUntil)
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipeHeld(c, up)
		go pipe(up, c)
	}
}

// pipeHeld copies what the server sends to the client, holding each chunk
// back while the proxy is paused.
func (p *CutProxy) pipeHeld(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		hold := time.Until(p.pausedUntil)
		p.mu.Unlock()
		if hold > 0 {
			time.Sleep(hold)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

// Pause holds back what the server sends for d, connections kept open.
func (p *CutProxy) Pause(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pausedUntil = time.Now().Add(d)
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Accepted returns how many connections the proxy accepted, those it
// closed at once while cut included: a client's first one says it has
// started talking to the API server.
func (p *CutProxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Cut closes every connection and refuses new ones for d.
func (p *CutProxy) Cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.downUntil = time.Now().Add(d)
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// ProxyTo starts a CutProxy to the API server of kubeconfig and returns it
// with a kubeconfig that goes through it.
func ProxyTo(t *testing.T, kubeconfig string) (*CutProxy, string) {
	t.Helper()
	var proxy *CutProxy
	kc := rewriteKubeconfig(t, kubeconfig, "kubeconfig-proxied", func(c *clientcmdapi.Cluster) {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		proxy = newCutProxy(t, u.Host)
		u.Host = proxy.ln.Addr().String()
		c.Server = u.String()
	})
	return proxy, kc
}

// rewriteKubeconfig writes a copy of kubeconfig, each of its clusters
// changed by edit, to name in the test's temporary folder and returns its
// path.
func rewriteKubeconfig(t testing.TB, kubeconfig, name string, edit func(c *clientcmdapi.Cluster)) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		edit(c)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
