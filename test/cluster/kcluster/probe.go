package kcluster

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Prober sends an HTTP request to the echo Service from the client network at a
// fixed interval, each on a new connection, and counts the answers and failures.
type Prober struct {
	mu       sync.Mutex
	ok       int
	failures []string
	nodes    map[string]int
	stop     chan struct{}
	done     chan struct{}
}

// StartProber probes addr every interval until Stop.
func (c *Cluster) StartProber(addr string, interval time.Duration) *Prober {
	p := &Prober{nodes: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			body, err := c.ClientGet(addr)
			p.mu.Lock()
			if err != nil {
				p.failures = append(p.failures, time.Now().Format("15:04:05.000")+" "+err.Error())
			} else {
				p.ok++
				if f := strings.Fields(body); len(f) == 2 {
					p.nodes[f[1]]++
				}
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// Stop ends the probes and returns how many answered, the failures, and the answers
// per node of the answering pod.
func (p *Prober) Stop() (ok int, failures []string, byNode map[string]int) {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok, p.failures, p.nodes
}

// Connection is one long-lived TCP connection from the client network to the echo
// Service's line port: a line every 200 ms, each answered.
type Connection struct {
	conn  net.Conn
	mu    sync.Mutex
	lines int
	err   error
	stop  chan struct{}
	done  chan struct{}
}

// HoldConnection opens the connection to addr:9000 and keeps it busy until Close.
func (c *Cluster) HoldConnection(addr string) (*Connection, error) {
	conn, err := DialIn(c.ClientNS.Path(), net.JoinHostPort(addr, "9000"), 3*time.Second)
	if err != nil {
		return nil, err
	}
	h := &Connection{conn: conn, stop: make(chan struct{}), done: make(chan struct{})}
	go h.run()
	return h, nil
}

func (h *Connection) run() {
	defer close(h.done)
	r := bufio.NewReader(h.conn)
	for i := 0; ; i++ {
		select {
		case <-h.stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
		_ = h.conn.SetDeadline(time.Now().Add(5 * time.Second))
		want := fmt.Sprintf("line-%d", i)
		_, err := fmt.Fprintln(h.conn, want)
		var got string
		if err == nil {
			got, err = r.ReadString('\n')
		}
		if err == nil && !strings.HasSuffix(strings.TrimSpace(got), want) {
			err = fmt.Errorf("answer %q to %q", got, want)
		}
		h.mu.Lock()
		if err != nil {
			h.err = err
			h.mu.Unlock()
			return
		}
		h.lines++
		h.mu.Unlock()
	}
}

// Close ends the connection and returns how many lines were answered and the error
// that broke it, if any.
func (h *Connection) Close() (lines int, err error) {
	close(h.stop)
	<-h.done
	h.conn.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines, h.err
}

// RouteWatch samples, every 100 ms, how many routes the ToR accepted from each node,
// and remembers the lowest count seen per node.
type RouteWatch struct {
	mu   sync.Mutex
	min  map[string]int
	stop chan struct{}
	done chan struct{}
}

// WatchRoutes starts sampling the ToR.
func (c *Cluster) WatchRoutes() *RouteWatch {
	w := &RouteWatch{min: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			counts := c.TorRoutesFrom()
			w.mu.Lock()
			for _, n := range c.Nodes {
				got := counts[n.Name]
				if m, ok := w.min[n.Name]; !ok || got < m {
					w.min[n.Name] = got
				}
			}
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// Stop ends the sampling and returns the lowest count seen per node.
func (w *RouteWatch) Stop() map[string]int {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.min
}

// TorRoutesFrom is how many routes (both families) the ToR holds from each node,
// stale ones included: -1 for a node whose neighbor cannot be read.
func (c *Cluster) TorRoutesFrom() map[string]int {
	out := map[string]int{}
	for _, n := range c.Nodes {
		nb, err := c.Tor.Neighbor(n.IPv4)
		if err != nil {
			out[n.Name] = -1
			continue
		}
		total := 0
		for _, af := range nb.AddressFamilyInfo {
			total += af.AcceptedPrefixCounter
		}
		out[n.Name] = total
	}
	return out
}

// PodNetNS is the network namespace of the running pod named pod (as
// /proc/PID/ns/net of its container's process): the cluster finds the process by
// the POD_NAME its environment carries (the echo workload's downward API).
func (c *Cluster) PodNetNS(pod string) (string, error) {
	for _, n := range c.Nodes {
		for _, pid := range cgroupPIDs(n.cgroup) {
			env, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "environ"))
			if err != nil {
				continue
			}
			for _, kv := range strings.Split(string(env), "\x00") {
				if kv == "POD_NAME="+pod {
					return fmt.Sprintf("/proc/%d/ns/net", pid), nil
				}
			}
		}
	}
	return "", fmt.Errorf("no process of pod %s", pod)
}

// Node returns the node named name.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}
