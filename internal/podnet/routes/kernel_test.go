package routes

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// testNetns is a network namespace of the test's own, deleted when it ends, and a
// netlink handle in it.
func testNetns(t *testing.T) (string, *netlink.Handle) {
	t.Helper()
	name := fmt.Sprintf("kbgp-%d-podrt", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("network namespace %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("delete namespace %s: %v: %s", name, err, out)
		}
	})
	ns, err := netns.GetFromName(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return name, h
}

// addLink adds an interface with addresses (connected routes, proto kernel) in the
// handle's namespace: one end of a veth pair whose other end is up too, so it has a
// carrier (the dummy driver may be missing from the kernel).
func addLink(t *testing.T, h *netlink.Handle, name string, addrs ...string) {
	t.Helper()
	link := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: name}, PeerName: name + "-p"}
	if err := h.LinkAdd(link); err != nil {
		t.Fatal(err)
	}
	peer, err := h.LinkByName(name + "-p")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.LinkSetUp(peer); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p := netip.MustParsePrefix(a)
		addr := &netlink.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}, Flags: 0x02 /* IFA_F_NODAD */}
		if err := h.AddrAdd(link, addr); err != nil {
			t.Fatalf("%s on %s: %v", a, name, err)
		}
	}
	if err := h.LinkSetUp(link); err != nil {
		t.Fatal(err)
	}
}

func ipRoutes(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "route", "show", "table", "main").CombinedOutput()
	if err != nil {
		t.Fatalf("ip route: %v: %s", err, out)
	}
	v6, err := exec.Command("ip", "-n", ns, "-6", "route", "show", "table", "main").CombinedOutput()
	if err != nil {
		t.Fatalf("ip -6 route: %v: %s", err, v6)
	}
	return string(out) + string(v6)
}

// TestNetlinkRoutesNeverReplaceAForeignRoute, in a network namespace of its own: the
// bridge's connected route for the node's pod CIDR, the node subnet's route and an
// administrator's static route are never replaced (errForeignRoute, the table
// byte-identical), and removing the prefix leaves them; kbgp's own routes are added,
// replaced, listed and removed.
func TestNetlinkRoutesNeverReplaceAForeignRoute(t *testing.T) {
	ns, h := testNetns(t)
	addLink(t, h, "cbr0", "10.244.1.1/24", "2001:db8:44:1::1/64")
	addLink(t, h, "eth0", "10.81.0.11/24", "2001:db8:81::11/64")
	if out, err := exec.Command("ip", "-n", ns, "route", "add", "10.244.9.0/24", "via", "10.81.0.1").CombinedOutput(); err != nil {
		t.Fatalf("static route: %v: %s", err, out)
	}
	k := netlinkRoutes{h: h}
	before := ipRoutes(t, ns)
	node2, node2v6 := netip.MustParseAddr("10.81.0.12"), netip.MustParseAddr("2001:db8:81::12")
	for _, tc := range []struct {
		prefix string
		via    netip.Addr
	}{
		{"10.244.1.0/24", node2},
		{"2001:db8:44:1::/64", node2v6},
		{"10.81.0.0/24", node2},
		{"2001:db8:81::/64", node2v6},
		{"10.244.9.0/24", node2},
	} {
		if err := k.Replace(netip.MustParsePrefix(tc.prefix), []netip.Addr{tc.via}); !errors.Is(err, errForeignRoute) {
			t.Errorf("%s via %s over a route kbgp did not install: %v, want errForeignRoute", tc.prefix, tc.via, err)
		}
		if err := k.Delete(netip.MustParsePrefix(tc.prefix)); err != nil {
			t.Errorf("delete %s: %v", tc.prefix, err)
		}
	}
	if diff := cmp.Diff(before, ipRoutes(t, ns)); diff != "" {
		t.Fatalf("the table changed (-before +after):\n%s", diff)
	}

	own := netip.MustParsePrefix("10.244.2.0/24")
	own6 := netip.MustParsePrefix("2001:db8:44:2::/64")
	for _, step := range []struct {
		prefix netip.Prefix
		via    netip.Addr
	}{{own, node2}, {own6, node2v6}, {own, netip.MustParseAddr("10.81.0.13")}} {
		if err := k.Replace(step.prefix, []netip.Addr{step.via}); err != nil {
			t.Fatalf("%s via %s: %v", step.prefix, step.via, err)
		}
	}
	got, err := k.List()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[netip.Prefix][]netip.Addr{own: {netip.MustParseAddr("10.81.0.13")}, own6: {node2v6}}, got, cmpopts.EquateComparable(netip.Prefix{}, netip.Addr{})); diff != "" {
		t.Errorf("kbgp's routes (-want +got):\n%s", diff)
	}
	for _, p := range []netip.Prefix{own, own6} {
		if err := k.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(before, ipRoutes(t, ns)); diff != "" {
		t.Errorf("kbgp's routes removed, the table is not as before (-before +after):\n%s", diff)
	}
	local, err := k.LocalAddresses()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"10.244.1.1/24", "10.81.0.11/24", "2001:db8:81::11/64"} {
		found := false
		for _, l := range local {
			found = found || l == netip.MustParsePrefix(want)
		}
		if !found {
			t.Errorf("local addresses %v lack %s", local, want)
		}
	}
}

// TestNetlinkMultipathViaLinkLocal, in a network namespace of its own: an IPv4
// default route over two IPv6 link-local next hops (RFC 8950) on two links is one
// multipath route with RTA_VIA next hops, listed back zoned; it shrinks to one next
// hop and goes.
func TestNetlinkMultipathViaLinkLocal(t *testing.T) {
	ns, h := testNetns(t)
	addLink(t, h, "up1", "fe80::11/64")
	addLink(t, h, "up2", "fe80::12/64")
	k := netlinkRoutes{h: h}
	def, def6 := netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")
	tor1, tor2 := netip.MustParseAddr("fe80::1").WithZone("up1"), netip.MustParseAddr("fe80::2").WithZone("up2")
	for _, p := range []netip.Prefix{def, def6} {
		if err := k.Replace(p, []netip.Addr{tor1, tor2}); err != nil {
			t.Fatalf("%s via both: %v", p, err)
		}
	}
	table := ipRoutes(t, ns)
	for _, want := range []string{"nexthop via inet6 fe80::1 dev up1", "nexthop via inet6 fe80::2 dev up2", "nexthop via fe80::1 dev up1", "nexthop via fe80::2 dev up2"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	eq := cmpopts.EquateComparable(netip.Prefix{}, netip.Addr{})
	got, err := k.List()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[netip.Prefix][]netip.Addr{def: {tor1, tor2}, def6: {tor1, tor2}}, got, eq); diff != "" {
		t.Errorf("kbgp's routes (-want +got):\n%s", diff)
	}
	if err := k.Replace(def, []netip.Addr{tor2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.List(); !cmp.Equal([]netip.Addr{tor2}, got[def], eq) {
		t.Errorf("after one next hop left: %v, want [%s]", got[def], tor2)
	}
	for _, p := range []netip.Prefix{def, def6} {
		if err := k.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := k.List(); len(got) != 0 {
		t.Errorf("left after removal: %v", got)
	}
}
