package intent

import (
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// otherNode is a second Node of the cluster: worker-1 (node()) is the agent's.
func otherNode() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-2"},
		Spec:       corev1.NodeSpec{PodCIDRs: []string{"10.244.2.0/24", "2001:db8:244:2::/64"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "10.0.0.11"},
			{Type: corev1.NodeExternalIP, Address: "2001:db8::11"},
			{Type: corev1.NodeHostName, Address: "worker-2"},
		}},
	}
}

var (
	worker2     = ReservedOwner{Kind: "Node", Name: "worker-2"}
	kubernetesC = ReservedOwner{Kind: "ServiceCIDR", Name: "kubernetes"}
)

// clusterReserved reserves worker-2 and the Service CIDRs 10.96.0.0/16 and
// 2001:db8:96::/112.
func clusterReserved() *Reserved {
	r := NewReserved()
	r.Set(worker2, NodeReservations(otherNode()))
	r.Set(kubernetesC, ServiceCIDRReservations([]string{"10.96.0.0/16", "2001:db8:96::/112"}))
	return r
}

// reservedIndex is an index of worker-1 with one peer of both families, whose
// advertisement allows every address of the tests as external and load-balancer IPs
// and announces cluster IPs too.
func reservedIndex(r *Reserved) *exports.Index {
	wide := []kbgpv1.CIDR{"10.0.0.0/8", "2001:db8::/32"}
	ad := serviceAdWithin("ext", nil, "65001:1", wide, wide, kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceClusterIP)
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{ad}, Reserved: r}
	in.nodeOwned = nodeOwned(in.Node)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}}, testLocalASN, false)
	x := exports.New("worker-1")
	x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
	return x
}

// squatter is a Service with one external or load-balancer IP and the cluster IP
// 10.96.0.10.
func squatter(external, lb string) *corev1.Service {
	svc := lbService("web", nil)
	svc.Spec.ClusterIPs = []string{"10.96.0.10"}
	svc.Spec.ExternalIPs = nil
	if external != "" {
		svc.Spec.ExternalIPs = []string{external}
	}
	if lb != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lb}}
	}
	return &svc
}

// TestClusterAddressesAreNeverServiceAddresses: the review's second claim, for the
// rest of the cluster. Inside prefixes that allow them, a Service's external or
// load-balancer IP equal to another Node's address, inside its pod CIDR (a pod IP) or
// free in the Service CIDR was announced; it is refused and the message names the
// reserved set. The Service's own cluster IP, in the Service CIDR, is still announced.
func TestClusterAddressesAreNeverServiceAddresses(t *testing.T) {
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	for _, tc := range []struct {
		name, external, lb, refused string
	}{
		{"another node's InternalIP", "10.0.0.11", "", "ExternalIP 10.0.0.11 is an address of Node worker-2: not announced"},
		{"another node's ExternalIP", "2001:db8::11", "", "ExternalIP 2001:db8::11 is an address of Node worker-2: not announced"},
		{"a pod IP of another node", "10.244.2.7", "", "ExternalIP 10.244.2.7 is in the pod CIDR 10.244.2.0/24 of Node worker-2: not announced"},
		{"an IPv6 pod IP of another node", "", "2001:db8:244:2::7", "LoadBalancerIP 2001:db8:244:2::7 is in the pod CIDR 2001:db8:244:2::/64 of Node worker-2: not announced"},
		{"a free Service-CIDR address", "", "10.96.100.100", "LoadBalancerIP 10.96.100.100 is in the Service CIDR 10.96.0.0/16 of ServiceCIDR kubernetes: not announced"},
		{"a free IPv6 Service-CIDR address", "2001:db8:96::99", "", "ExternalIP 2001:db8:96::99 is in the Service CIDR 2001:db8:96::/112 of ServiceCIDR kubernetes: not announced"},
		{"this node's address keeps its message", "10.0.0.10", "", "ExternalIP 10.0.0.10 is an address of this node or in its pod CIDRs: not announced"},
		{"an address nobody reserves", "10.1.2.3", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := reservedIndex(clusterReserved())
			x.SetService(key, squatter(tc.external, tc.lb), nil)
			export := x.Export(exports.PeerKey{Name: "a"})
			addr := netip.MustParseAddr(tc.external + tc.lb)
			if _, got := export[netip.PrefixFrom(addr, addr.BitLen())]; got != (tc.refused == "") {
				t.Errorf("%s exported %v, want %v", addr, got, tc.refused == "")
			}
			if !hasPrefix(export, "10.96.0.10/32") {
				t.Errorf("the Service's own cluster IP, in the Service CIDR, is not announced")
			}
			if got := x.RefusedOf(key); got != tc.refused {
				t.Errorf("refused %q, want %q", got, tc.refused)
			}
		})
	}
}

// TestAReservationChangeReSetsOnlyItsClaimants: a Node's going frees its address for
// the Service claiming it, and only that Service is set again; its coming back takes
// the address away again. The incremental result equals a full build each time.
func TestAReservationChangeReSetsOnlyItsClaimants(t *testing.T) {
	web, other := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "shop", Name: "other"}
	webSvc := squatter("10.0.0.11", "")
	otherSvc := squatter("10.1.2.3", "")
	otherSvc.Name, otherSvc.Spec.ClusterIPs = "other", []string{"10.96.0.11"}
	r := clusterReserved()
	x := reservedIndex(r)
	x.SetService(web, webSvc, nil)
	x.SetService(other, otherSvc, nil)

	full := func() *exports.Index {
		f := reservedIndex(r)
		f.SetService(web, webSvc, nil)
		f.SetService(other, otherSvc, nil)
		return f
	}
	p := exports.PeerKey{Name: "a"}
	for step, node := range []*corev1.Node{nil, otherNode()} {
		changed := r.Set(worker2, NodeReservations(node))
		claimants := x.ClaimantsIn(changed)
		if want := []types.NamespacedName{web}; !slices.Equal(claimants, want) {
			t.Fatalf("step %d: claimants %v, want %v", step, claimants, want)
		}
		changes := bgp.ExportChanges{}
		for _, k := range claimants {
			changes.Append(x.SetService(k, webSvc, nil))
		}
		host := bgp.Path{Prefix: netip.MustParsePrefix("10.0.0.11/32"), Attributes: x.Export(p)[netip.MustParsePrefix("10.0.0.11/32")]}
		want := bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Set: []bgp.Path{host}}}}
		if node != nil {
			want = bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Remove: []netip.Prefix{host.Prefix}}}}
		}
		if diff := cmp.Diff(want, changes, cmpOpts...); diff != "" {
			t.Errorf("step %d: changes (-want +got):\n%s", step, diff)
		}
		f := full()
		if diff := cmp.Diff(f.Export(p), x.Export(p), cmpOpts...); diff != "" {
			t.Errorf("step %d: incremental differs from a full build (-full +incremental):\n%s", step, diff)
		}
		if diff := cmp.Diff(f.Refused(), x.Refused()); diff != "" {
			t.Errorf("step %d: refusals differ from a full build (-full +incremental):\n%s", step, diff)
		}
	}
}

// TestReservedLookup: the most specific reservation names the address, of the first
// owner by name when two reserve one prefix; the prefix stays reserved until both are
// gone; Set returns what changed.
func TestReservedLookup(t *testing.T) {
	r := NewReserved()
	a, b := ReservedOwner{Kind: "Node", Name: "a"}, ReservedOwner{Kind: "Node", Name: "b"}
	host := []Reservation{{netip.MustParsePrefix("10.96.0.5/32"), ReservedNodeAddress}}
	r.Set(kubernetesC, ServiceCIDRReservations([]string{"10.96.0.0/16", "not a cidr"}))
	r.Set(b, host)
	if got := r.Set(a, host); !slices.Equal(got, []netip.Prefix{host[0].Prefix}) {
		t.Errorf("Set returned %v", got)
	}
	lookup := func(addr string) string {
		by, ok := r.lookup(netip.MustParseAddr(addr))
		if !ok {
			return ""
		}
		return by.message()
	}
	const inCIDR = "is in the Service CIDR 10.96.0.0/16 of ServiceCIDR kubernetes"
	for _, step := range []struct {
		remove          *ReservedOwner
		host, elsewhere string
	}{
		{nil, "is an address of Node a", inCIDR},
		{&a, "is an address of Node b", inCIDR},
		{&b, inCIDR, inCIDR},
		{&kubernetesC, "", ""},
	} {
		if step.remove != nil {
			r.Set(*step.remove, nil)
		}
		if got := lookup("10.96.0.5"); got != step.host {
			t.Errorf("removed %v: 10.96.0.5 %q, want %q", step.remove, got, step.host)
		}
		if got := lookup("10.96.7.7"); got != step.elsewhere {
			t.Errorf("removed %v: 10.96.7.7 %q, want %q", step.remove, got, step.elsewhere)
		}
	}
	if _, ok := (*Reserved)(nil).lookup(netip.MustParseAddr("10.0.0.1")); ok {
		t.Error("a nil set reserves")
	}
}

// BenchmarkReservationChange: a Node's address (or its pod CIDR) moving back and forth,
// with n Services of which one claims the address. An address costs a lookup, flat in
// n; a pod CIDR one pass over the claimed addresses (a Node's coming or going).
func BenchmarkReservationChange(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, what := range []string{"address", "podCIDR"} {
			b.Run(fmt.Sprintf("%s/n=%d", what, n), func(b *testing.B) {
				r := clusterReserved()
				x := reservedIndex(r)
				svcs := map[types.NamespacedName]*corev1.Service{}
				for i := range n {
					svc := squatter(netip.AddrFrom4([4]byte{10, 1, byte(i / 250), byte(i % 250)}).String(), "")
					svc.Name = fmt.Sprintf("s-%05d", i)
					svc.Spec.ClusterIPs = []string{netip.AddrFrom4([4]byte{10, 96, byte(i / 250), byte(i%250 + 1)}).String()}
					key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
					svcs[key] = svc
					x.SetService(key, svc, nil)
				}
				web := types.NamespacedName{Namespace: "shop", Name: "web"}
				svcs[web] = squatter("10.0.0.11", "")
				x.SetService(web, svcs[web], nil)
				b.ResetTimer()
				for i := range b.N {
					node := otherNode()
					if i%2 == 0 && what == "address" {
						node.Status.Addresses[0].Address = "10.0.0.12"
					}
					if i%2 == 0 && what == "podCIDR" {
						node.Spec.PodCIDRs[0] = "10.244.3.0/24"
					}
					for _, k := range x.ClaimantsIn(r.Set(worker2, NodeReservations(node))) {
						x.SetService(k, svcs[k], nil)
					}
				}
			})
		}
	}
}

// TestReservedCostsLittlePerNode: every agent keeps an entry per Node of the cluster,
// so one costs little: 491 bytes for a Node with an address and a pod CIDR, where a
// map per prefix cost 1,142.
func TestReservedCostsLittlePerNode(t *testing.T) {
	if perNode := reservedBytesPerNode(10000); perNode > 700 {
		t.Errorf("the reserved set holds %.0f bytes a Node, want at most 700", perNode)
	}
}

// BenchmarkReservedNodes reports the live heap the reserved set holds a Node.
func BenchmarkReservedNodes(b *testing.B) {
	var perNode float64
	for b.Loop() {
		perNode = reservedBytesPerNode(10000)
	}
	b.ReportMetric(perNode, "B/node")
}

// reservedBytesPerNode sets n Nodes, each with an address and a pod CIDR, and returns
// the live heap the set holds a Node.
func reservedBytesPerNode(n int) float64 {
	nodes := make([][]Reservation, n)
	owners := make([]ReservedOwner, n)
	for i := range n {
		node := otherNode()
		node.Name = fmt.Sprintf("node-%05d", i)
		node.Spec.PodCIDRs = []string{fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.%d.%d.1", i/256, i%256)}}
		nodes[i], owners[i] = NodeReservations(node), ReservedOwner{Kind: "Node", Name: node.Name}
	}
	before := liveHeap()
	r := NewReserved()
	for i := range n {
		r.Set(owners[i], nodes[i])
	}
	perNode := float64(liveHeap()-before) / float64(n)
	runtime.KeepAlive(r)
	return perNode
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
