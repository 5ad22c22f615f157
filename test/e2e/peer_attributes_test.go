package e2e

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// birdIBGPAddr is BIRD's address of the iBGP session (AS 65001, like the node).
const birdIBGPAddr = "198.51.100.14"

// selecting is a dual-stack peer config with the topology's timers whose families
// select the advertisements labelled advertise=value.
func (tp *peeringTopology) selecting(name, value string) *kbgpv1.BGPPeerConfig {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(value)}}
	return &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: tp.plainConfig.Spec.Timers.DeepCopy(),
		Families: []kbgpv1.BGPFamily{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
		},
	}}
}

// peerAttributesScenario: the pod CIDR reaches FRR with the communities of the
// advertisement FRR's peer config selects and BIRD with those of another one (standard,
// well-known and large), BIRD's iBGP session gets that advertisement's local
// preference, and gobgpd, whose peer config selects nothing, gets nothing while its
// session stays up. Moving peers between peer configs and changing an advertisement's
// communities, adding and removing an AS-path prepend and a MED (seen at FRR and at
// BIRD, eBGP and iBGP) resets no session. The scenario leaves the topology as it
// found it.
func (tp *peeringTopology) peerAttributesScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	n := tp.nodeName
	frrV4, frrV6 := dropped(t, tp.frr, "198.51.100.1"), dropped(t, tp.frr, "2001:db8:1::1")
	birdUp := birdProtocol(t, tp.bird, "kbgp")
	gobgpNotifications := gobgpNeighbor(t, tp.gobgp).NotificationsReceived

	birdAd := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-pods-bird", Labels: map[string]string{"advertise": n + "-bird"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementPodCIDR,
			Attributes: &kbgpv1.BGPAttributes{
				Communities: &kbgpv1.BGPCommunities{
					Standard:  []kbgpv1.StandardCommunity{"65001:300"},
					WellKnown: []kbgpv1.WellKnownCommunity{"no-export"},
					Large:     []kbgpv1.LargeCommunity{"65001:3:300"},
				},
				LocalPreference: ptr.To[int64](250),
			},
		}}},
	}
	birdConfig := tp.selecting(n+"-bird", n+"-bird")
	quietConfig := tp.selecting(n+"-quiet", n+"-selects-nothing")
	create(t, birdAd, birdConfig, quietConfig)
	setPeers(t, tp.nodeConfig, func(peers []kbgpv1.BGPNodePeer) []kbgpv1.BGPNodePeer {
		refer(peers, "bird", birdConfig.Name)
		refer(peers, "gobgpd", quietConfig.Name)
		return append(peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: "bird-ibgp", PeerAddress: birdIBGPAddr, PeerASN: 65001,
			PeerConfigRef: &kbgpv1.PeerConfigReference{Name: birdConfig.Name}}})
	})

	birdCommunities := []string{"65001:300", "65535:65281"}
	birdLarge := []string{"65001:3:300"}
	tp.bird.WaitEstablished(t, "kbgp_ibgp", sessionTimeout)
	waitBIRDExactly(t, tp.bird, "master4", podCIDR4, birdCommunities, birdLarge, func(r netlab.BIRDRoute) error {
		if r.LocalPref == "250" {
			return fmt.Errorf("the eBGP session got the iBGP-only local preference 250")
		}
		return nil
	})
	waitBIRDExactly(t, tp.bird, "ibgp4", podCIDR4, birdCommunities, birdLarge, func(r netlab.BIRDRoute) error {
		if r.LocalPref != "250" {
			return fmt.Errorf("local preference %q over iBGP, want 250", r.LocalPref)
		}
		return nil
	})
	waitFRRExactly(t, tp.frr, "ipv4", podCIDR4, []string{"65001:100"})
	waitFRRExactly(t, tp.frr, "ipv6", podCIDR6, []string{"65001:100"})
	waitGoBGPEmpty(t, tp.gobgp)

	// Only BIRD's advertisement changes: BIRD's communities follow, FRR's stay.
	update(t, birdAd, func(a *kbgpv1.BGPAdvertisement) {
		a.Spec.Advertisements[0].Attributes.Communities.Standard = []kbgpv1.StandardCommunity{"65001:301"}
	})
	waitBIRDExactly(t, tp.bird, "master4", podCIDR4, []string{"65001:301", "65535:65281"}, birdLarge, nil)
	waitFRRExactly(t, tp.frr, "ipv4", podCIDR4, []string{"65001:100"})
	waitGoBGPEmpty(t, tp.gobgp)

	// A second advertisement FRR selects adds an AS-path prepend and a MED: FRR's route
	// carries both next to the first advertisement's community, over the same session;
	// deleting it takes them away again.
	prependAd := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-pods-prepend", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementPodCIDR,
			Attributes:        &kbgpv1.BGPAttributes{ASPathPrepend: &kbgpv1.ASPathPrepend{Count: 2}, MED: ptr.To[int64](42)},
		}}},
	}
	create(t, prependAd)
	frrPathAndMED := func(asPath string, med *uint32) func(frr.Route) bool {
		return func(r frr.Route) bool {
			return r.ASPath == asPath && reflect.DeepEqual(r.MED, med) && sameSet(r.Communities, []string{"65001:100"})
		}
	}
	tp.frr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, frrPathAndMED("65001 65001 65001", ptr.To[uint32](42)))
	tp.frr.WaitRoute(t, "ipv6", podCIDR6, sessionTimeout, frrPathAndMED("65001 65001 65001", ptr.To[uint32](42)))
	// BIRD gets its own prepend and MED from a second advertisement its peer config
	// selects: over eBGP the AS path "65001 65001" and MED 7, over iBGP the MED only
	// (kbgp prepends to eBGP peers only), both next to the first advertisement's
	// communities; FRR's attributes stay as they are.
	birdPrependAd := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-pods-bird-prepend", Labels: map[string]string{"advertise": n + "-bird"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementPodCIDR,
			Attributes:        &kbgpv1.BGPAttributes{ASPathPrepend: &kbgpv1.ASPathPrepend{Count: 1}, MED: ptr.To[int64](7)},
		}}},
	}
	create(t, birdPrependAd)
	birdPathAndMED := func(asPath, med string) func(netlab.BIRDRoute) error {
		return func(r netlab.BIRDRoute) error {
			if r.ASPath != asPath || r.Attrs["BGP.med"] != med {
				return fmt.Errorf("AS path %q MED %q, want %q and %q", r.ASPath, r.Attrs["BGP.med"], asPath, med)
			}
			return nil
		}
	}
	bird301 := []string{"65001:301", "65535:65281"}
	waitBIRDExactly(t, tp.bird, "master4", podCIDR4, bird301, birdLarge, birdPathAndMED("65001 65001", "7"))
	waitBIRDExactly(t, tp.bird, "ibgp4", podCIDR4, bird301, birdLarge, birdPathAndMED("", "7"))
	tp.frr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, frrPathAndMED("65001 65001 65001", ptr.To[uint32](42)))
	if err := server.Client.Delete(t.Context(), birdPrependAd); err != nil {
		t.Fatal(err)
	}
	waitBIRDExactly(t, tp.bird, "master4", podCIDR4, bird301, birdLarge, birdPathAndMED("65001", ""))

	if err := server.Client.Delete(t.Context(), prependAd); err != nil {
		t.Fatal(err)
	}
	tp.frr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, frrPathAndMED("65001", nil))

	// Back to the topology's peer configs: BIRD and gobgpd get FRR's attributes again.
	setPeers(t, tp.nodeConfig, func(peers []kbgpv1.BGPNodePeer) []kbgpv1.BGPNodePeer {
		refer(peers, "bird", tp.plainConfig.Name)
		refer(peers, "gobgpd", tp.plainConfig.Name)
		return slices.DeleteFunc(peers, func(p kbgpv1.BGPNodePeer) bool { return p.Name == "bird-ibgp" })
	})
	waitBIRDExactly(t, tp.bird, "master4", podCIDR4, []string{"65001:100"}, nil, nil)
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		routes, err := tp.gobgp.Routes("ipv4")
		p, ok := routes[podCIDR4]
		return err == nil && len(routes) == 1 && ok && p[0].HasCommunity("65001:100"), fmt.Sprintf("gobgpd routes %v, %v", routes, err)
	})

	if got := dropped(t, tp.frr, "198.51.100.1"); got != frrV4 {
		t.Errorf("FRR IPv4 session: connectionsDropped %d -> %d", frrV4, got)
	}
	if got := dropped(t, tp.frr, "2001:db8:1::1"); got != frrV6 {
		t.Errorf("FRR IPv6 session: connectionsDropped %d -> %d", frrV6, got)
	}
	if p := birdProtocol(t, tp.bird, "kbgp"); !p.SameStateChange(birdUp) || p.BGPState != "Established" {
		t.Errorf("BIRD session restarted: %s since %q, was up since %q", p.BGPState, p.Since, birdUp.Since)
	}
	if nb := gobgpNeighbor(t, tp.gobgp); nb.NotificationsReceived != gobgpNotifications || nb.State != "ESTABLISHED" {
		t.Errorf("gobgpd session %s with %d NOTIFICATION(s) received, had %d", nb.State, nb.NotificationsReceived, gobgpNotifications)
	}
}

// setPeers rewrites the peers of the node config's instance.
func setPeers(t *testing.T, nc *kbgpv1.BGPNodeConfig, edit func([]kbgpv1.BGPNodePeer) []kbgpv1.BGPNodePeer) {
	t.Helper()
	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) {
		nc.Spec.BGPInstances[0].Peers = edit(nc.Spec.BGPInstances[0].Peers)
	})
}

// refer points the named peer at another peer config.
func refer(peers []kbgpv1.BGPNodePeer, name, config string) {
	for i := range peers {
		if peers[i].Name == name {
			peers[i].PeerConfigRef = &kbgpv1.PeerConfigReference{Name: config}
		}
	}
}

// waitBIRDExactly waits until table holds prefix and nothing else, with exactly these
// communities and large communities, and check (when given) passes.
func waitBIRDExactly(t *testing.T, b *netlab.BIRD, table, prefix string, communities, large []string, check func(netlab.BIRDRoute) error) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		routes, err := b.Routes(table)
		if err != nil {
			return false, err.Error()
		}
		r, ok := routes[prefix]
		if len(routes) != 1 || !ok {
			return false, fmt.Sprintf("BIRD %s has %v, want only %s", table, slices.Sorted(maps.Keys(routes)), prefix)
		}
		if !sameSet(r.Communities, communities) || !sameSet(r.LargeCommunities, large) {
			return false, fmt.Sprintf("BIRD %s %s: communities %v large %v, want %v and %v", table, prefix, r.Communities, r.LargeCommunities, communities, large)
		}
		if check != nil {
			if err := check(r); err != nil {
				return false, fmt.Sprintf("BIRD %s %s: %v", table, prefix, err)
			}
		}
		return true, ""
	})
}

// waitFRRExactly waits until FRR's table of afi holds prefix and nothing else, with
// exactly these communities and no large ones.
func waitFRRExactly(t *testing.T, f *netlab.FRR, afi, prefix string, communities []string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		routes, err := f.Routes(afi)
		if err != nil {
			return false, err.Error()
		}
		r, ok := routes[prefix]
		if len(routes) != 1 || !ok {
			return false, fmt.Sprintf("FRR %s has %v, want only %s", afi, slices.Sorted(maps.Keys(routes)), prefix)
		}
		if !sameSet(r.Communities, communities) || len(r.LargeCommunities) != 0 {
			return false, fmt.Sprintf("FRR %s: %v, want communities %v and no large ones", afi, r, communities)
		}
		return true, ""
	})
}

// waitGoBGPEmpty waits until gobgpd has no IPv4 route while its session is up, then
// checks that nothing arrives for another two seconds.
func waitGoBGPEmpty(t *testing.T, g *netlab.GoBGPD) {
	t.Helper()
	empty := func() (bool, string) {
		routes, err := g.Routes("ipv4")
		nb := gobgpNeighbor(t, g)
		return err == nil && len(routes) == 0 && nb.State == "ESTABLISHED", fmt.Sprintf("gobgpd (%s) routes %v, %v", nb.State, routes, err)
	}
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, empty)
	time.Sleep(2 * time.Second)
	if ok, msg := empty(); !ok {
		t.Fatalf("gobgpd selects nothing but: %s", msg)
	}
}

func birdProtocol(t *testing.T, b *netlab.BIRD, name string) netlab.BIRDProtocol {
	t.Helper()
	p, err := b.Protocol(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gobgpNeighbor is gobgpd's view of its session with the node.
func gobgpNeighbor(t *testing.T, g *netlab.GoBGPD) netlab.GoBGPNeighbor {
	t.Helper()
	ns, err := g.Neighbors()
	if err != nil {
		t.Fatal(err)
	}
	return ns["198.51.100.9"]
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Compact(slices.Sorted(slices.Values(a))), slices.Compact(slices.Sorted(slices.Values(b))))
}
