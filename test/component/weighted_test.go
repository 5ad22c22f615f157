package component

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// rolloutStep is the fake time between two EndpointSlice events of the rollout.
const rolloutStep = 200 * time.Millisecond

// TestRolloutSendsAHandfulOfUpdates replaces the 50 pods of an externalTrafficPolicy
// Local Service with weighted ECMP one by one (a new pod, its readiness, the old pod's
// removal: 150 EndpointSlice events, 30 s of a fake clock) while this node's share of
// them moves, and counts the UPDATEs a real GoBGP router receives. With the agent's
// pacing the router gets one per exports.WeightInterval at most and ends with the
// final weight; without it, about one per change of the node's endpoint count.
func TestRolloutSendsAHandfulOfUpdates(t *testing.T) {
	paced := rollout(t, netip.MustParseAddr("127.0.0.8"), exports.NewPacer(exports.WeightInterval))
	unpaced := rollout(t, netip.MustParseAddr("127.0.0.9"), nil)
	t.Logf("UPDATEs during the rollout: %d paced, %d without pacing", paced, unpaced)
	bound := uint64(50*3*rolloutStep/exports.WeightInterval) + 2
	if paced > bound {
		t.Errorf("the paced rollout sent %d UPDATEs, want at most %d (one per %s of a %s rollout, plus the last)", paced, bound, exports.WeightInterval, 50*3*rolloutStep)
	}
	if unpaced <= paced {
		t.Errorf("without pacing the rollout sent %d UPDATEs, not more than the %d paced: the test does not measure pacing", unpaced, paced)
	}
}

// rollout runs the rollout against a new router at addr, the index paced by pacer
// (nil: not paced), and returns the UPDATEs the router received during it.
func rollout(t *testing.T, addr netip.Addr, pacer *exports.Pacer) uint64 {
	r := startRouter(t, addr, 65010)
	set := newTestSpeakers(t)
	now := time.Unix(1_000_000, 0)
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	svc := corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"203.0.113.40"},
			ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal},
	}
	// Old pod i runs on this node when i is even, new pod i when i%3 == 0: the node's
	// count goes from 25 to 17 through many values, never to 0.
	type pod struct {
		name  string
		here  bool
		ready bool
	}
	pods := map[string]pod{}
	for i := range 50 {
		pods[fmt.Sprint("old-", i)] = pod{fmt.Sprint("old-", i), i%2 == 0, true}
	}
	slices := func() []discoveryv1.EndpointSlice {
		s := discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "web-1",
			Labels: map[string]string{discoveryv1.LabelServiceName: key.Name}}}
		for _, p := range pods {
			node := "worker-2"
			if p.here {
				node = "worker-1"
			}
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{NodeName: ptr(node), Conditions: discoveryv1.EndpointConditions{Ready: ptr(p.ready)},
				TargetRef: &corev1.ObjectReference{Namespace: key.Namespace, Name: p.name}})
		}
		return []discoveryv1.EndpointSlice{s}
	}
	in := rolloutInput(r, svc, slices())
	in.Pacer, in.Now = pacer, func() time.Time { return now }
	res := intent.Build(in)
	apply(t, set, res.Desired)
	r.WaitEstablished(t, local, sessionTimeout)
	svcPrefix := netip.MustParsePrefix("203.0.113.40/32")
	weight := func(n uint32) bgp.ReceivedRoute {
		return route(svcPrefix, bgp.PathAttributes{LinkBandwidth: bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: n * intent.BandwidthPerEndpoint}})
	}
	waitReceived(t, r, bgp.FamilyIPv4Unicast, weight(25))
	before := r.UpdatesReceived(t, local)

	// due is when a Service the index held back is set again (the agent's queue).
	var due time.Time
	setService := func() {
		t.Helper()
		changes := res.Exports.SetService(key, &svc, slices())
		if err := set.ApplyExports(context.Background(), changes); err != nil {
			t.Fatal(err)
		}
		if wait, held := res.Exports.Held()[key]; held && (due.IsZero() || now.Add(wait).Before(due)) {
			due = now.Add(wait)
		}
		// Real time for GoBGP to send each change on its own.
		time.Sleep(20 * time.Millisecond)
	}
	event := func(change func()) {
		now = now.Add(rolloutStep)
		if !due.IsZero() && !now.Before(due) {
			due = time.Time{}
			setService()
		}
		change()
		setService()
	}
	for i := range 50 {
		name := fmt.Sprint("new-", i)
		event(func() { pods[name] = pod{name, i%3 == 0, false} })
		event(func() { pods[name] = pod{name, i%3 == 0, true} })
		event(func() { delete(pods, fmt.Sprint("old-", i)) })
	}
	for !due.IsZero() {
		now = due
		due = time.Time{}
		setService()
	}
	waitReceived(t, r, bgp.FamilyIPv4Unicast, weight(17))
	if n := r.Drops(local); n != 0 {
		t.Errorf("the session with %s dropped %d times during the rollout", r.Addr, n)
	}
	return r.UpdatesReceived(t, local) - before
}

// rolloutInput is the node's input with one eBGP peer, the router r, sent the
// Service's external IPs with weighted ECMP.
func rolloutInput(r *gobgptest.Router, svc corev1.Service, slices []discoveryv1.EndpointSlice) intent.Input {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	return intent.Input{
		NodeConfig: &kbgpv1.BGPNodeConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
			Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
				Peers: []kbgpv1.BGPNodePeer{{
					BGPPeer: kbgpv1.BGPPeer{Name: "tor", PeerAddress: r.Addr.String(), PeerASN: 65010,
						PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "tor"}},
					PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: local.String()},
				}},
			}}},
		},
		Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}},
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"tor": {
			ObjectMeta: metav1.ObjectMeta{Name: "tor"},
			Spec: kbgpv1.BGPPeerConfigSpec{
				Transport: &kbgpv1.BGPTransport{PeerPort: ptr(int32(r.Port))},
				Timers:    &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr[int32](1)},
				Families:  []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}},
			},
		}},
		Advertisements: []kbgpv1.BGPAdvertisement{{
			ObjectMeta: metav1.ObjectMeta{Name: "weighted", Labels: map[string]string{"advertise": "bgp"}},
			Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
				AdvertisementType: kbgpv1.AdvertisementService,
				Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
					ExternalIPPrefixes: []kbgpv1.CIDR{"203.0.113.0/24"}},
				Attributes: &kbgpv1.BGPAttributes{WeightedECMP: true},
			}}},
		}},
		Services:       []corev1.Service{svc},
		EndpointSlices: map[types.NamespacedName][]discoveryv1.EndpointSlice{{Namespace: svc.Namespace, Name: svc.Name}: slices},
		RouterIDs:      map[int64]netip.Addr{65001: netip.MustParseAddr("10.0.0.1")},
	}
}
