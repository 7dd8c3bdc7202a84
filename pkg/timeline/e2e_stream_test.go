package timeline_test

import (
	"bufio"
	"io"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// live is a plugin run whose output the test reads while it runs.
type live struct {
	t     *testing.T
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	errb  strings.Builder
	grew  chan struct{}
	done  chan struct{}
}

// startLive starts `kubectl graceful ARGS` and collects stdout line by line.
func startLive(t *testing.T, kubeconfig string, args ...string) *live {
	t.Helper()
	l := &live{t: t, cmd: pluginCmd(t, kubeconfig, args...), grew: make(chan struct{}, 1), done: make(chan struct{})}
	out, err := l.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	l.cmd.Stderr = &syncWriter{mu: &l.mu, w: &l.errb}
	if err := l.cmd.Start(); err != nil {
		t.Fatalf("starting kubectl graceful: %v", err)
	}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
			select {
			case l.grew <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if l.cmd.ProcessState == nil {
			_ = l.cmd.Process.Kill()
			_ = l.cmd.Wait()
		}
	})
	return l
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitFor waits until a stdout line contains sub.
func (l *live) waitFor(sub string, timeout time.Duration) {
	l.t.Helper()
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if strings.Contains(line, sub) {
				l.mu.Unlock()
				return
			}
		}
		out := strings.Join(l.lines, "\n")
		l.mu.Unlock()
		select {
		case <-l.grew:
		case <-l.done:
			l.t.Fatalf("the plugin ended before printing %q:\n%s", sub, out)
		case <-deadline:
			l.t.Fatalf("no line with %q within %s:\n%s", sub, timeout, out)
		}
	}
}

// wait waits for the plugin to end and parses its output.
func (l *live) wait() run {
	l.t.Helper()
	<-l.done
	err := l.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		l.t.Fatalf("kubectl graceful: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return parseRun(l.t, strings.Join(l.lines, "\n")+"\n", l.errb.String(), code)
}

// cutProxy is a loopback TCP proxy to the API server that the test can cut:
// every open connection is closed and new ones are refused for a while, as
// when a load balancer or a VPN drops long-lived watches. It can also
// pause: connections stay open but what the server sends is held back for
// a while, as when a watch stalls.
type cutProxy struct {
	ln          net.Listener
	target      string
	mu          sync.Mutex
	conns       []net.Conn
	downUntil   time.Time
	pausedUntil time.Time
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut(0) })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
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
func (p *cutProxy) pipeHeld(dst, src net.Conn) {
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

// pause holds back what the server sends for d, connections kept open.
func (p *cutProxy) pause(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pausedUntil = time.Now().Add(d)
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every connection and refuses new ones for d.
func (p *cutProxy) cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.downUntil = time.Now().Add(d)
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// proxyTo starts a cutProxy to the API server of kubeconfig and returns it
// with a kubeconfig that goes through it.
func proxyTo(t *testing.T, kubeconfig string) (*cutProxy, string) {
	t.Helper()
	var proxy *cutProxy
	kc := proxiedKubeconfig(t, kubeconfig, func(target string) string {
		proxy = newCutProxy(t, target)
		return proxy.ln.Addr().String()
	})
	return proxy, kc
}

// proxiedKubeconfig writes a copy of kubeconfig whose clusters point at the
// proxy, and returns the proxy's target (the API server's host:port).
func proxiedKubeconfig(t *testing.T, kubeconfig string, proxy func(target string) string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = proxy(u.Host)
		c.Server = u.String()
	}
	path := filepath.Join(t.TempDir(), "kubeconfig-proxied")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
