// Package gobgptest wraps Upstream, the plain GoBGP router, for tests: started on
// a loopback address at a free port and stopped when the test ends, with methods that
// fail the test instead of returning errors.
package gobgptest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/wait"
)

// Router is an Upstream listening on Addr:Port.
type Router struct {
	Addr     netip.Addr
	Port     uint16
	Upstream *Upstream
}

// Start runs a router with ASN asn and router ID addr, listening on addr at a free
// port; it is stopped when the test ends.
func Start(t *testing.T, addr netip.Addr, asn uint32) *Router {
	t.Helper()
	port := freePort(t, addr)
	u, err := StartUpstream(context.Background(), UpstreamConfig{ASN: asn, RouterID: addr, Address: addr, Port: port})
	if err != nil {
		t.Fatalf("start test router %s: %v", addr, err)
	}
	t.Cleanup(u.Stop)
	return &Router{Addr: addr, Port: port, Upstream: u}
}

// AddNeighbor accepts a session from addr (see Upstream.AddNeighbor).
func (r *Router) AddNeighbor(t *testing.T, addr netip.Addr, asn uint32, opts ...NeighborOption) {
	t.Helper()
	if err := r.Upstream.AddNeighbor(context.Background(), addr, asn, opts...); err != nil {
		t.Fatalf("test router %s: %v", r.Addr, err)
	}
}

// Reset ends the session with addr with a Cease NOTIFICATION; the neighbor reconnects.
func (r *Router) Reset(t *testing.T, addr netip.Addr) {
	t.Helper()
	if err := r.Upstream.ResetNeighbor(context.Background(), addr); err != nil {
		t.Fatal(err)
	}
}

// Originate makes the router announce prefix to its neighbors.
func (r *Router) Originate(t *testing.T, prefix netip.Prefix) {
	t.Helper()
	if err := r.Upstream.Originate(prefix, r.Addr); err != nil {
		t.Fatal(err)
	}
}

// State returns the state of the session with addr.
func (r *Router) State(t *testing.T, addr netip.Addr) bgp.SessionState {
	t.Helper()
	sessions, err := r.Upstream.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sessions[addr]
}

// Drops is how often the session with addr left Established.
func (r *Router) Drops(addr netip.Addr) int { return r.Upstream.Drops(addr) }

// WaitEstablished waits until the session with addr is Established.
func (r *Router) WaitEstablished(t *testing.T, addr netip.Addr, timeout time.Duration) {
	t.Helper()
	wait.Eventually(t, timeout, fmt.Sprintf("session %s -> %s Established", r.Addr, addr), func() bool {
		return r.State(t, addr) == bgp.StateEstablished
	})
}

// Routes returns the routes of one family received from every neighbor, sorted by
// neighbor and prefix.
func (r *Router) Routes(t *testing.T, family bgp.Family) []bgp.ReceivedRoute {
	t.Helper()
	all, err := r.Upstream.Received(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []bgp.ReceivedRoute
	for _, rt := range all {
		if rt.Prefix.Addr().Is6() == (family == bgp.FamilyIPv6Unicast) {
			out = append(out, rt)
		}
	}
	return out
}

func freePort(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Fatalf("find a free port on %s: %v", addr, err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// UpdatesReceived is how many UPDATE messages the neighbor at addr sent.
func (r *Router) UpdatesReceived(t *testing.T, addr netip.Addr) uint64 {
	t.Helper()
	n, err := r.Upstream.UpdatesReceived(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
