package netlab

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Relay lets processes inside a namespace reach a TCP address in the root
// namespace (typically a kube-apiserver on 127.0.0.1) without any address
// or route in the root namespace: a goroutine in the test process listens on
// a Unix socket in the lab directory and forwards each connection to the
// target, and a socat process inside the namespace listens on the
// namespace's loopback and connects each client to that Unix socket.
type Relay struct {
	lab    *Lab
	ns     *Namespace
	addr   string
	target string
	sock   string
	ln     net.Listener
	// Proc is the socat process inside the namespace.
	Proc *Process

	mu     sync.Mutex
	paused bool
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	// accepted counts relayed (not refused) connections.
	accepted int
}

// UnixRelay starts a relay making target (host:port, reachable from the
// test process) available inside ns at nsListen (a loopback host:port such as
// "127.0.0.1:6443" or "[::1]:6443"). It waits until socat listens. The relay
// is closed on teardown.
func (l *Lab) UnixRelay(ns *Namespace, nsListen string, target string) *Relay {
	l.t.Helper()
	if _, err := exec.LookPath("socat"); err != nil {
		l.t.Fatalf("netlab: UnixRelay: socat not found: %v", err)
	}
	host, portStr, err := net.SplitHostPort(nsListen)
	if err != nil {
		l.t.Fatalf("netlab: UnixRelay: listen address %q: %v", nsListen, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		l.t.Fatalf("netlab: UnixRelay: listen address %q must be a loopback IP:port", nsListen)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		l.t.Fatalf("netlab: UnixRelay: bad port in %q", nsListen)
	}
	if _, _, err := net.SplitHostPort(target); err != nil {
		l.t.Fatalf("netlab: UnixRelay: target %q: %v", target, err)
	}
	r := &Relay{
		lab:    l,
		ns:     ns,
		addr:   nsListen,
		target: target,
		sock:   filepath.Join(l.dir, fmt.Sprintf("relay-%d.sock", l.nextSeq())),
		conns:  map[net.Conn]struct{}{},
	}
	ln, err := net.Listen("unix", r.sock)
	if err != nil {
		l.t.Fatalf("netlab: UnixRelay: %v", err)
	}
	_ = os.Chmod(r.sock, 0o666)
	r.ln = ln
	l.mu.Lock()
	l.relays = append(l.relays, r)
	l.mu.Unlock()
	r.wg.Add(1)
	go r.serve()

	// nodelay: socat leaves Nagle's algorithm on, which held a small write (a watch
	// event) that followed another until the client's delayed ACK, up to 40 ms
	// (TestRelayDoesNotHoldSmallWrites). The client is a Go program, which turns it off
	// on its own side, as the relay's goroutine does on its connection to target.
	listen := fmt.Sprintf("TCP4-LISTEN:%d,bind=%s,fork,reuseaddr,nodelay", port, ip)
	if ip.Is6() && !ip.Is4In6() {
		listen = fmt.Sprintf("TCP6-LISTEN:%d,bind=[%s],fork,reuseaddr,ipv6only=1,nodelay", port, ip)
	}
	r.Proc = ns.Start("socat-relay", "socat", listen, "UNIX-CONNECT:"+r.sock)
	WaitFor(l.t, 10*time.Second, 50*time.Millisecond, func() (bool, string) {
		if r.Proc.Exited() {
			l.t.Fatalf("netlab: relay socat in %s exited: %v: %s", ns.Name, r.Proc.Err(), r.Proc.Log())
		}
		ok, err := ns.TCPListening(port)
		if err != nil {
			return false, err.Error()
		}
		return ok, fmt.Sprintf("socat not listening on %s in %s yet", nsListen, ns.Name)
	})
	return r
}

// Addr returns the address to use inside the namespace (nsListen).
func (r *Relay) Addr() string { return r.addr }

// Target returns the relayed target address.
func (r *Relay) Target() string { return r.target }

// Accepted returns how many connections have been relayed to the target.
func (r *Relay) Accepted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted
}

// Pause closes every relayed connection and makes new ones fail (they are
// accepted by socat and closed at once, which clients see as a reset or an
// empty reply), simulating an unreachable target.
func (r *Relay) Pause() {
	r.mu.Lock()
	r.paused = true
	conns := r.conns
	r.conns = map[net.Conn]struct{}{}
	r.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// Resume makes the relay forward new connections again.
func (r *Relay) Resume() {
	r.mu.Lock()
	r.paused = false
	r.mu.Unlock()
}

// Close stops the relay: the Unix listener, every relayed connection and the
// socat process.
func (r *Relay) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	conns := r.conns
	r.conns = map[net.Conn]struct{}{}
	r.mu.Unlock()
	r.ln.Close()
	for c := range conns {
		c.Close()
	}
	if r.Proc != nil {
		_ = r.Proc.Stop()
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	_ = os.Remove(r.sock)
}

func (r *Relay) serve() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			r.mu.Lock()
			closed := r.closed
			r.mu.Unlock()
			if closed {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		r.mu.Lock()
		if r.paused || r.closed {
			r.mu.Unlock()
			c.Close()
			continue
		}
		r.conns[c] = struct{}{}
		r.mu.Unlock()
		r.wg.Add(1)
		go r.handle(c)
	}
}

func (r *Relay) handle(c net.Conn) {
	defer r.wg.Done()
	defer r.forget(c)
	up, err := net.DialTimeout("tcp", r.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	r.mu.Lock()
	if r.paused || r.closed {
		r.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	if _, ok := r.conns[c]; !ok {
		// Paused and resumed while dialing: c was closed.
		r.mu.Unlock()
		up.Close()
		return
	}
	r.conns[up] = struct{}{}
	r.accepted++
	r.mu.Unlock()
	defer r.forget(up)
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Propagate EOF in one direction; the other direction ends when
		// its side closes.
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	<-done
	c.Close()
	up.Close()
}

func (r *Relay) forget(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}
