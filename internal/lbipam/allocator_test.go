package lbipam

import (
	"net/netip"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

var (
	v4 = corev1.IPv4Protocol
	v6 = corev1.IPv6Protocol
)

func rng(first, last string) kbgpv1.AddressRange {
	return kbgpv1.AddressRange{First: netip.MustParseAddr(first), Last: netip.MustParseAddr(last)}
}

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func req(svc string, fams ...corev1.IPFamily) Request {
	return Request{Service: svc, Required: fams, Ports: []Port{{corev1.ProtocolTCP, 80}}}
}

func assign(t *testing.T, a *Allocator, r Request, want ...string) Result {
	t.Helper()
	res := a.Assign(r)
	if !slices.Equal(res.Addresses, addrs(want...)) {
		t.Fatalf("%s: got %v (problems %q), want %v", r.Service, res.Addresses, res.Problems, want)
	}
	return res
}

func TestLowestFreeAndRelease(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.1"), rng("198.51.100.10", "198.51.100.10")}}})
	assign(t, a, req("ns/a", v4), "203.0.113.0")
	assign(t, a, req("ns/b", v4), "203.0.113.1")
	assign(t, a, req("ns/c", v4), "198.51.100.10")
	res := assign(t, a, req("ns/d", v4))
	if !res.Pending() || res.Problems[0] != "no IPv4 address left in LoadBalancerIPPool p" {
		t.Fatalf("exhausted pool: %+v", res)
	}
	if st := a.Stats("p"); st.IPv4 != (FamilyCount{Total: 3, Used: 3}) || !slices.Equal(st.Exhausted, []string{"ns/d"}) {
		t.Fatalf("stats: %+v", st)
	}
	a.Release("ns/b")
	assign(t, a, req("ns/d", v4), "203.0.113.1")
	if st := a.Stats("p"); st.Exhausted != nil {
		t.Fatalf("pool still exhausted after the waiting Service got an address: %+v", st)
	}
	// Assigning again keeps what a Service holds.
	assign(t, a, req("ns/a", v4), "203.0.113.0")
}

func TestRequestedAddresses(t *testing.T) {
	a := New()
	a.SetPools([]Pool{
		{Name: "open", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}},
		{Name: "off", Disabled: true, Ranges: []kbgpv1.AddressRange{rng("198.51.100.0", "198.51.100.15")}},
	})
	r := req("ns/a", v4)
	r.Requested = addrs("203.0.113.9")
	assign(t, a, r, "203.0.113.9")

	for _, tc := range []struct {
		requested, problem string
	}{
		{"203.0.113.9", `address 203.0.113.9 is held by ns/a (sharing needs the same "kbgp.io/sharing-key" annotation)`},
		{"198.51.100.3", "requested address 198.51.100.3 lies in LoadBalancerIPPool off, which is disabled"},
		{"100.64.0.1", "requested address 100.64.0.1 lies in no LoadBalancerIPPool that serves this Service"},
	} {
		r := req("ns/b", v4)
		r.Requested = addrs(tc.requested)
		res := assign(t, a, r)
		if !slices.Equal(res.Problems, []string{tc.problem}) {
			t.Errorf("request %s: problems %q, want %q", tc.requested, res.Problems, tc.problem)
		}
	}
	// A Service that changes its request moves to the new address; the old one is
	// taken until its status no longer shows it.
	r.Requested = addrs("203.0.113.10")
	assign(t, a, r, "203.0.113.10")
	if a.Stats("open").IPv4.Used != 2 {
		t.Fatalf("the old address was released before the status was written: %+v", a.Stats("open"))
	}
	if freed := a.Written("ns/a", addrs("203.0.113.10")); !slices.Equal(freed, addrs("203.0.113.9")) || a.Stats("open").IPv4.Used != 1 {
		t.Fatalf("the old address was not released: %+v", a.Stats("open"))
	}
}

func TestDisabledPoolKeepsWhatItGave(t *testing.T) {
	a := New()
	pool := Pool{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}
	a.SetPools([]Pool{pool})
	assign(t, a, req("ns/a", v4), "203.0.113.0")
	pool.Disabled = true
	a.SetPools([]Pool{pool})
	assign(t, a, req("ns/a", v4), "203.0.113.0")
	if res := assign(t, a, req("ns/b", v4)); res.Problems[0] != "no enabled LoadBalancerIPPool with IPv4 addresses serves this Service" {
		t.Fatalf("a disabled pool gave a new address: %+v", res)
	}
}

func TestSharing(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
	web := Request{Service: "ns/web", Required: []corev1.IPFamily{v4}, SharingKey: "k", Ports: []Port{{corev1.ProtocolTCP, 80}}}
	dns := Request{Service: "ns/dns", Required: []corev1.IPFamily{v4}, SharingKey: "k", Ports: []Port{{corev1.ProtocolUDP, 53}}}
	clash := Request{Service: "ns/web2", Required: []corev1.IPFamily{v4}, SharingKey: "k", Ports: []Port{{corev1.ProtocolTCP, 80}}}
	other := Request{Service: "ns/other", Required: []corev1.IPFamily{v4}, SharingKey: "x", Ports: []Port{{corev1.ProtocolUDP, 53}}}
	assign(t, a, web, "203.0.113.0")
	assign(t, a, dns, "203.0.113.0")
	assign(t, a, clash, "203.0.113.1")
	assign(t, a, other, "203.0.113.2")
	if st := a.Stats("p"); st.IPv4.Used != 3 {
		t.Fatalf("a shared address counts once: %+v", st)
	}
	// A requested address shared under the key, with a port clash, is refused.
	clash.Requested = addrs("203.0.113.0")
	if res := a.Assign(clash); len(res.Problems) != 1 || res.Problems[0] != "address 203.0.113.0 is shared with ns/web, which already uses port 80/TCP" {
		t.Fatalf("clash: %+v", res)
	}
	// Releasing one sharer keeps the address for the other.
	a.Release("ns/web")
	assign(t, a, dns, "203.0.113.0")
}

func TestDualStack(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.0"), rng("2001:db8::", "2001:db8::ff")}}})
	assign(t, a, req("ns/both", v6, v4), "2001:db8::", "203.0.113.0")
	// RequireDualStack without an IPv4 address left: nothing, and the IPv6 address
	// is not held.
	res := assign(t, a, req("ns/required", v4, v6))
	if len(res.Problems) != 1 || a.Stats("p").IPv6.Used != 1 {
		t.Fatalf("required dual-stack: %+v, stats %+v", res, a.Stats("p"))
	}
	// PreferDualStack: the missing second family does not hold the first back.
	prefer := req("ns/prefer", v6)
	prefer.Optional = []corev1.IPFamily{v4}
	assign(t, a, prefer, "2001:db8::1")
}

func TestSelectorAndPoolOrder(t *testing.T) {
	a := New()
	a.SetPools([]Pool{
		{Name: "b-public", Selector: labels.SelectorFromSet(labels.Set{"expose": "public"}), Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}},
		{Name: "a-internal", Selector: labels.SelectorFromSet(labels.Set{"expose": "internal"}), Ranges: []kbgpv1.AddressRange{rng("198.51.100.0", "198.51.100.15")}},
		{Name: "c-any", Ranges: []kbgpv1.AddressRange{rng("100.64.0.0", "100.64.0.15")}},
	})
	public := req("ns/pub", v4)
	public.Labels = labels.Set{"expose": "public"}
	assign(t, a, public, "203.0.113.0")
	assign(t, a, req("ns/plain", v4), "100.64.0.0")
	// Relabelled out of its pool, a Service moves on its next assignment.
	public.Labels = labels.Set{"expose": "internal"}
	assign(t, a, public, "198.51.100.0")
}

func TestPoolRemovedReleasesOnNextAssign(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "old", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
	assign(t, a, req("ns/a", v4), "203.0.113.0")
	a.SetPools([]Pool{{Name: "new", Ranges: []kbgpv1.AddressRange{rng("198.51.100.0", "198.51.100.15")}}})
	assign(t, a, req("ns/a", v4), "198.51.100.0")
}

func TestRestoreKeepsTheOlderOfADoubleAllocation(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
	older, newer, outside := req("ns/older", v4), req("ns/newer", v4), req("ns/outside", v4)
	older.Current, newer.Current, outside.Current = addrs("203.0.113.5"), addrs("203.0.113.5"), addrs("100.64.0.1")
	a.Restore(older)
	a.Restore(newer)
	a.Restore(outside)
	if !slices.Equal(a.Holds("ns/older"), addrs("203.0.113.5")) || a.Holds("ns/newer") != nil || a.Holds("ns/outside") != nil {
		t.Fatalf("restored: older %v newer %v outside %v", a.Holds("ns/older"), a.Holds("ns/newer"), a.Holds("ns/outside"))
	}
	// Fresh allocations skip restored addresses.
	assign(t, a, req("ns/fresh", v4), "203.0.113.0")
	assign(t, a, newer, "203.0.113.1")
}

// TestALateWriteOfADeposedLeaderIsUndone: the leader's writes are not fenced (see
// docs/load-balancer.md): a deposed leader frozen between deciding and sending may
// still put an address into a Service's status after the new leader gave it to another
// Service. That status change is an event of the Service, and its assignment keeps the
// holder's address with the holder and moves the late writer off it.
func TestALateWriteOfADeposedLeaderIsUndone(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.1")}}})
	assign(t, a, req("ns/holder", v4), "203.0.113.0")
	late := req("ns/late", v4)
	late.Current = addrs("203.0.113.0")
	assign(t, a, late, "203.0.113.1")
	if !slices.Equal(a.Holds("ns/holder"), addrs("203.0.113.0")) {
		t.Fatalf("the holder lost its address: %v", a.Holds("ns/holder"))
	}
}

func TestStatsCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool Pool
		v4   int64
		v6   int64
	}{
		{"cidr and range", Pool{Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15"), rng("198.51.100.10", "198.51.100.20")}}, 27, 0},
		{"avoid buggy", Pool{AvoidBuggyIPs: true, Ranges: []kbgpv1.AddressRange{rng("198.51.100.0", "198.51.101.255")}}, 508, 0},
		{"avoid buggy inside", Pool{AvoidBuggyIPs: true, Ranges: []kbgpv1.AddressRange{rng("198.51.100.1", "198.51.100.254")}}, 254, 0},
		{"ipv6 /120", Pool{Ranges: []kbgpv1.AddressRange{rng("2001:db8::", "2001:db8::ff")}}, 0, 256},
		{"ipv6 /64 saturates", Pool{Ranges: []kbgpv1.AddressRange{rng("2001:db8::", "2001:db8::ffff:ffff:ffff:ffff")}}, 0, 1<<63 - 1},
	} {
		tc.pool.Name = "p"
		a := New()
		a.SetPools([]Pool{tc.pool})
		if st := a.Stats("p"); st.IPv4.Total != tc.v4 || st.IPv6.Total != tc.v6 {
			t.Errorf("%s: totals %d/%d, want %d/%d", tc.name, st.IPv4.Total, st.IPv6.Total, tc.v4, tc.v6)
		}
	}
}

func TestAvoidBuggyIPsSkipsThem(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", AvoidBuggyIPs: true, Ranges: []kbgpv1.AddressRange{rng("198.51.100.255", "198.51.101.1")}}})
	assign(t, a, req("ns/a", v4), "198.51.101.1")
	if res := a.Assign(req("ns/b", v4)); !res.Pending() {
		t.Fatalf("got %v from a pool of one usable address", res.Addresses)
	}
}

func TestOverlaps(t *testing.T) {
	got := Overlaps([]Pool{
		{Name: "a", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}},
		{Name: "b", Ranges: []kbgpv1.AddressRange{rng("203.0.113.15", "203.0.113.20")}},
		{Name: "c", Ranges: []kbgpv1.AddressRange{rng("203.0.113.21", "203.0.113.30"), rng("2001:db8::", "2001:db8::ff")}},
		{Name: "d", Ranges: []kbgpv1.AddressRange{rng("2001:db8::ff", "2001:db8::1ff")}},
	})
	want := map[string][]string{"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}
	if len(got) != len(want) {
		t.Fatalf("overlaps %v, want %v", got, want)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("overlaps of %s: %v, want %v", k, got[k], v)
		}
	}
}

// serviceRequest is the request of a LoadBalancer Service on port 80/TCP, changed by mut.
func serviceRequest(t *testing.T, ns, name string, mut func(*corev1.Service)) Request {
	t.Helper()
	svc := &corev1.Service{}
	svc.Namespace, svc.Name = ns, name
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.IPFamilies = []corev1.IPFamily{v4}
	svc.Spec.Ports = []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}
	if mut != nil {
		mut(svc)
	}
	r, err := NewRequest(svc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sharingKey(key string, port int32) func(*corev1.Service) {
	return func(s *corev1.Service) {
		s.Annotations = map[string]string{"kbgp.io/sharing-key": key}
		s.Spec.Ports[0].Port = port
	}
}

// The review's first claim: a sharing key is free text, so a Service of another
// namespace with the holder's key and other ports got the holder's address.
func TestSharingStaysInsideOneNamespace(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
	assign(t, a, serviceRequest(t, "tenant-a", "web", sharingKey("front", 80)), "203.0.113.0")
	assign(t, a, serviceRequest(t, "tenant-b", "squat", sharingKey("front", 443)), "203.0.113.1")
	// Asking for the address by name is refused with the reason.
	asked := serviceRequest(t, "tenant-b", "asked", func(s *corev1.Service) {
		sharingKey("front", 8443)(s)
		s.Annotations["kbgp.io/load-balancer-ips"] = "203.0.113.0"
	})
	res := assign(t, a, asked)
	want := `address 203.0.113.0 is held by tenant-a/web (addresses are shared only inside one namespace)`
	if !slices.Equal(res.Problems, []string{want}) {
		t.Fatalf("problems %q, want %q", res.Problems, want)
	}
	// Inside the namespace the key still shares.
	assign(t, a, serviceRequest(t, "tenant-a", "dns", sharingKey("front", 53)), "203.0.113.0")
}

// An address announced only from nodes with an endpoint (Local) is shared only with
// Services of the same policy and, for Local, the same pods.
func TestSharingNeedsTheSameTrafficPolicyAndPods(t *testing.T) {
	local := func(key string, port int32, app string) func(*corev1.Service) {
		return func(s *corev1.Service) {
			sharingKey(key, port)(s)
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			s.Spec.Selector = map[string]string{"app": app}
		}
	}
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
	assign(t, a, serviceRequest(t, "ns", "web", local("k", 80, "web")), "203.0.113.0")
	assign(t, a, serviceRequest(t, "ns", "cluster", sharingKey("k", 81)), "203.0.113.1")
	assign(t, a, serviceRequest(t, "ns", "other-pods", local("k", 82, "db")), "203.0.113.2")
	assign(t, a, serviceRequest(t, "ns", "same-pods", local("k", 443, "web")), "203.0.113.0")
}

// The holder keeps its address whatever a joiner does: when the holder changes its
// ports to one a joiner uses, or its key, the joiner moves, not the holder.
func TestSharingHolderKeepsItsAddress(t *testing.T) {
	for _, tc := range []struct {
		name   string
		holder func(*corev1.Service)
	}{
		{"holder takes the joiner's port", sharingKey("front", 53)},
		{"holder changes its key", sharingKey("back", 80)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New()
			a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.15")}}})
			assign(t, a, serviceRequest(t, "ns", "holder", sharingKey("front", 80)), "203.0.113.0")
			joiner := serviceRequest(t, "ns", "joiner", sharingKey("front", 53))
			assign(t, a, joiner, "203.0.113.0")
			holder := serviceRequest(t, "ns", "holder", tc.holder)
			holder.Current = addrs("203.0.113.0")
			assign(t, a, holder, "203.0.113.0")
			if slices.Contains(a.Holds("ns/joiner"), netip.MustParseAddr("203.0.113.0")) {
				t.Fatalf("the joiner still holds the holder's address next to a clash")
			}
			joiner.Current = addrs("203.0.113.0")
			assign(t, a, joiner, "203.0.113.1")
		})
	}
}

// A Service moved off an address keeps it taken until Written says its status no
// longer shows it: under a lagging status write, no other Service gets it meanwhile.
func TestAddressTakenUntilStatusWritten(t *testing.T) {
	a := New()
	a.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.1")}}})
	moving := req("ns/moving", v4)
	moving.Requested = addrs("203.0.113.0")
	assign(t, a, moving, "203.0.113.0")
	a.Written("ns/moving", addrs("203.0.113.0"))
	moving.Requested, moving.Current = addrs("203.0.113.1"), addrs("203.0.113.0")
	assign(t, a, moving, "203.0.113.1")
	if res := assign(t, a, req("ns/next", v4)); !res.Pending() {
		t.Fatalf("next: %+v", res)
	}
	if a.Written("ns/moving", addrs("203.0.113.0", "203.0.113.1")) != nil {
		t.Fatal("released an address the status still shows")
	}
	if a.Written("ns/moving", addrs("203.0.113.1")) == nil {
		t.Fatal("kept an address the status no longer shows")
	}
	assign(t, a, req("ns/next", v4), "203.0.113.0")
	// At a rebuild, every address a status may show (the one being written first) is
	// taken: the first assigned, the others shown.
	b := New()
	b.SetPools([]Pool{{Name: "p", Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.1")}}})
	moving.Current = addrs("203.0.113.1", "203.0.113.0")
	b.Restore(moving)
	if got := b.Holds("ns/moving"); !slices.Equal(got, addrs("203.0.113.1")) {
		t.Fatalf("restored %v", got)
	}
	if res := b.Assign(req("ns/next", v4)); !res.Pending() {
		t.Fatalf("next got %v after a rebuild while the status may still show it", res.Addresses)
	}
}

// The review's fifth claim, operator part: every address given back requeued every
// waiting Service. WaitingFor names only those the address can serve: waiting for an
// address of its pool, or requesting it.
func TestWaitingForNamesOnlyWhomAnAddressServes(t *testing.T) {
	a := New()
	a.SetPools([]Pool{
		{Name: "a", Selector: labels.SelectorFromSet(labels.Set{"pool": "a"}), Ranges: []kbgpv1.AddressRange{rng("203.0.113.0", "203.0.113.0")}},
		{Name: "b", Selector: labels.SelectorFromSet(labels.Set{"pool": "b"}), Ranges: []kbgpv1.AddressRange{rng("198.51.100.0", "198.51.100.0")}},
	})
	in := func(svc, pool string) Request {
		r := req(svc, v4)
		r.Labels = labels.Set{"pool": pool}
		return r
	}
	assign(t, a, in("ns/holder", "a"), "203.0.113.0")
	assign(t, a, in("ns/in-b", "b"), "198.51.100.0")
	waitA, waitB := in("ns/wait-a", "a"), in("ns/wait-b", "b")
	asking := in("ns/asking", "a")
	asking.Requested = addrs("203.0.113.0")
	unserved := req("ns/unserved", v6)
	for _, r := range []Request{waitA, waitB, asking, unserved} {
		if res := a.Assign(r); !res.Pending() {
			t.Fatalf("%s got %v", r.Service, res.Addresses)
		}
	}
	if got, want := a.WaitingFor(a.Release("ns/holder")), []string{"ns/asking", "ns/wait-a"}; !slices.Equal(got, want) {
		t.Errorf("freed 203.0.113.0: retry %v, want %v", got, want)
	}
	if got, want := a.WaitingFor(a.Release("ns/in-b")), []string{"ns/wait-b"}; !slices.Equal(got, want) {
		t.Errorf("freed 198.51.100.0: retry %v, want %v", got, want)
	}
}
