package exports

import (
	"maps"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// announceAll are Rules that give a peer every external IP of every Service, with one
// attribute set: the index's own behaviour, without intent's advertisements.
type announceAll struct{ attrs bgp.PathAttributes }

func (a *announceAll) Routes(svc *corev1.Service, _ labels.Set, _ int) ([]Route, []Refusal) {
	var out []Route
	for _, addr := range ServiceAddresses(svc, kbgpv1.ServiceExternalIP) {
		out = append(out, Route{Prefix: netip.PrefixFrom(addr, addr.BitLen()), Attributes: &a.attrs})
	}
	return out, nil
}

func externalIP(ns, name string, created int64, ip string) (types.NamespacedName, *corev1.Service) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.Unix(created, 0)},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{ip}},
	}
	return types.NamespacedName{Namespace: ns, Name: name}, svc
}

var cmpOpts = cmp.Options{
	cmp.Comparer(func(x, y netip.Prefix) bool { return x == y }),
	cmp.Comparer(func(x, y netip.Addr) bool { return x == y }),
	cmpopts.EquateEmpty(),
}

// TestChangesNameEachPeerBySpeakerAndAddress: one address is a peer in two speakers
// (two VRFs); a Service's changes reach each under its own speaker, Fill puts the
// exports into the desired state by name, and a deleted Service leaves nothing behind.
func TestChangesNameEachPeerBySpeakerAndAddress(t *testing.T) {
	def, red := bgp.InstanceKey{LocalASN: 65001}, bgp.InstanceKey{LocalASN: 65001, VRF: "red"}
	addr := netip.MustParseAddr("10.0.0.1")
	pod := bgp.Path{Prefix: netip.MustParsePrefix("10.244.1.0/24")}
	c1 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}
	c2 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 2}}
	x := New("worker-1")
	x.AddPeer(PeerKey{Instance: def, Name: "tor"}, addr, []bgp.Path{pod}, &announceAll{c1})
	x.AddPeer(PeerKey{Instance: red, Name: "tor-red"}, addr, nil, &announceAll{c2})
	key, svc := externalIP("shop", "web", 1, "203.0.113.10")
	web := netip.MustParsePrefix("203.0.113.10/32")

	want := bgp.ExportChanges{
		def: {{Peer: addr, Set: []bgp.Path{{Prefix: web, Attributes: c1}}}},
		red: {{Peer: addr, Set: []bgp.Path{{Prefix: web, Attributes: c2}}}},
	}
	if diff := cmp.Diff(want, x.SetService(key, svc, nil), cmpOpts); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	d := bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{
		def: {Peers: map[string]bgp.DesiredPeer{"tor": {}}},
		red: {Peers: map[string]bgp.DesiredPeer{"tor-red": {}}},
	}}
	x.Fill(d)
	wantFilled := map[bgp.InstanceKey]map[netip.Prefix]bgp.PathAttributes{
		def: {pod.Prefix: {}, web: c1},
		red: {web: c2},
	}
	for inst, peers := range map[bgp.InstanceKey]string{def: "tor", red: "tor-red"} {
		if diff := cmp.Diff(wantFilled[inst], d.Instances[inst].Peers[peers].Export, cmpOpts); diff != "" {
			t.Errorf("filled export of %s (-want +got):\n%s", peers, diff)
		}
	}
	if got := x.SetService(key, svc, nil); len(got) != 0 {
		t.Errorf("unchanged Service changed exports: %v", got)
	}
	want = bgp.ExportChanges{def: {{Peer: addr, Remove: []netip.Prefix{web}}}, red: {{Peer: addr, Remove: []netip.Prefix{web}}}}
	if diff := cmp.Diff(want, x.SetService(key, nil, nil), cmpOpts); diff != "" {
		t.Errorf("deleted (-want +got):\n%s", diff)
	}
	if len(x.services)+len(x.created)+len(x.crowded)+len(x.claims.bySrc)+x.claims.owners.Len()+len(x.claims.others) != 0 || x.contributors[PeerKey{Instance: red, Name: "tor-red"}].Len() != 0 {
		t.Errorf("the index keeps state of a deleted Service: services %v, created %v, claims %v, contributors %v",
			x.services, x.created, x.claims, x.contributors)
	}
}

// TestAnotherNamespaceWaitsForTheOwner: of two Services of two namespaces claiming one
// address, the older owns it; the later one is refused, and announced once the owner
// is gone, with both named among the touched refusals.
func TestAnotherNamespaceWaitsForTheOwner(t *testing.T) {
	x, p := indexOfOnePeer()
	ko, owner := externalIP("shop", "web", 1, "203.0.113.10")
	ks, squat := externalIP("other", "squat", 2, "203.0.113.10")
	x.SetService(ko, owner, nil)
	if got := x.SetService(ks, squat, nil); len(got) != 0 {
		t.Errorf("a later claim of another namespace changed the export: %v", got)
	}
	const refused = "ExternalIP 203.0.113.10 is the ExternalIP of Service shop/web of another namespace: not announced"
	if got := x.RefusedOf(ks); got != refused {
		t.Errorf("squatter refused %q, want %q", got, refused)
	}
	x.TouchedRefusals()
	// The owner's attributes were the squatter's too: the export does not change.
	if got := x.SetService(ko, nil, nil); len(got) != 0 {
		t.Errorf("owner deleted, the next claimant gives the same: %v", got)
	}
	if got := x.TouchedRefusals(); !cmp.Equal(got, []types.NamespacedName{ks, ko}) || x.RefusedOf(ks) != "" {
		t.Errorf("touched %v, squatter refused %q: want both touched and no refusal", got, x.RefusedOf(ks))
	}
	if got := x.Export(p); len(got) != 1 {
		t.Errorf("the squatter's address is not announced after the owner left: %v", got)
	}
	if got := x.Refused(); len(got) != 0 {
		t.Errorf("Refused() = %v", got)
	}
}

// TestARecreatedOwnerLosesItsRank: the owner of an address is deleted and created again
// under its name while the index saw no deletion (a missed event, a full build's
// state): its claims are renewed with the new creation time, the other namespace's
// Service, now the older, owns and announces the address, and the re-created one is
// refused for it; claims are compared by address and rank, so an owner re-set with the
// same creation time changes nothing.
func TestARecreatedOwnerLosesItsRank(t *testing.T) {
	x, p := indexOfOnePeer()
	ko, owner := externalIP("shop", "web", 1, "203.0.113.10")
	ks, other := externalIP("other", "api", 2, "203.0.113.10")
	x.SetService(ko, owner, nil)
	x.SetService(ks, other, nil)
	if got := x.SetService(ko, owner.DeepCopy(), nil); len(got) != 0 {
		t.Errorf("the owner set again unchanged changed the export: %v", got)
	}
	if x.RefusedOf(ko) != "" || x.RefusedOf(ks) == "" {
		t.Fatalf("before: owner refused %q, other refused %q", x.RefusedOf(ko), x.RefusedOf(ks))
	}
	x.TouchedRefusals()

	recreated := owner.DeepCopy()
	recreated.CreationTimestamp = metav1.Unix(3, 0)
	x.SetService(ko, recreated, nil)
	const refused = "ExternalIP 203.0.113.10 is the ExternalIP of Service other/api of another namespace: not announced"
	if got := x.RefusedOf(ko); got != refused {
		t.Errorf("the re-created Service is refused %q, want %q", got, refused)
	}
	if got := x.RefusedOf(ks); got != "" {
		t.Errorf("the older Service is still refused: %q", got)
	}
	if got := x.TouchedRefusals(); !cmp.Equal(got, []types.NamespacedName{ks, ko}) {
		t.Errorf("touched %v, want both", got)
	}
	if got := x.Export(p); len(got) != 1 {
		t.Errorf("the address is not announced once: %v", got)
	}
	x.SetService(ks, nil, nil)
	if x.RefusedOf(ko) != "" || len(x.Export(p)) != 1 || len(x.claims.others) != 0 {
		t.Errorf("the other Service deleted: re-created one refused %q, export %v, contested %v", x.RefusedOf(ko), x.Export(p), x.claims.others)
	}
}

// indexOfOnePeer is an index with one peer, tor, given every external IP with one
// community.
func indexOfOnePeer() (*Index, PeerKey) {
	p := PeerKey{Name: "tor"}
	x := New("worker-1")
	x.AddPeer(p, netip.MustParseAddr("10.0.0.1"), nil, &announceAll{bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}})
	return x, p
}

// TestSourcesAreComparedByName: the index keeps a Service's name once per SetService
// call, shared by the prefixes of the call; contributions of earlier calls (other
// pointers, the same name) are replaced and withdrawn by later ones, a second source of
// a prefix moves inline when the first leaves, and deleting both leaves nothing.
func TestSourcesAreComparedByName(t *testing.T) {
	addr := netip.MustParseAddr("10.0.0.1")
	peer := PeerKey{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: "tor"}
	x := New("worker-1")
	x.AddPeer(peer, addr, nil, &announceAll{})
	k1, s1 := externalIP("shop", "web", 1, "203.0.113.10")
	s1.Spec.ExternalIPs = append(s1.Spec.ExternalIPs, "203.0.113.11")
	k2, s2 := externalIP("shop", "api", 2, "203.0.113.11")
	p10, p11, p12 := netip.MustParsePrefix("203.0.113.10/32"), netip.MustParsePrefix("203.0.113.11/32"), netip.MustParsePrefix("203.0.113.12/32")
	x.SetService(k1, s1, nil)
	x.SetService(k2, s2, nil)
	book := x.contributors[peer]
	entry := func(p netip.Prefix) source { s, _ := book.Get(p); return s }
	if entry(p10).src != entry(p11).src || len(x.crowded[peerPrefix{peer, p11}]) != 1 {
		t.Fatalf("one call's prefixes do not share the name, or the second source is missing: %+v", maps.Collect(book.All()))
	}

	s1 = s1.DeepCopy()
	s1.Spec.ExternalIPs = []string{"203.0.113.11", "203.0.113.12"}
	want := bgp.ExportChanges{peer.Instance: {{Peer: addr, Set: []bgp.Path{{Prefix: p12}}, Remove: []netip.Prefix{p10}}}}
	if diff := cmp.Diff(want, x.SetService(k1, s1, nil), cmpOpts); diff != "" {
		t.Errorf("web changed (-want +got):\n%s", diff)
	}
	want = bgp.ExportChanges{peer.Instance: {{Peer: addr, Remove: []netip.Prefix{p12}}}}
	if diff := cmp.Diff(want, x.SetService(k1, nil, nil), cmpOpts); diff != "" {
		t.Errorf("web deleted (-want +got):\n%s", diff)
	}
	if s, ok := book.Get(p11); !ok || *s.src != k2 || len(x.crowded) != 0 || book.Len() != 1 {
		t.Errorf("after web left, 203.0.113.11 is api's alone: %+v", maps.Collect(book.All()))
	}
	want = bgp.ExportChanges{peer.Instance: {{Peer: addr, Remove: []netip.Prefix{p11}}}}
	if diff := cmp.Diff(want, x.SetService(k2, nil, nil), cmpOpts); diff != "" {
		t.Errorf("api deleted (-want +got):\n%s", diff)
	}
	if book.Len()+x.claims.owners.Len()+len(x.claims.others)+len(x.claims.bySrc) != 0 {
		t.Errorf("both deleted, the index keeps contributors %v, claims %v", maps.Collect(book.All()), x.claims)
	}
}
