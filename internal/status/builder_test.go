package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/routerid"
	"kbgp.io/kbgp/internal/speakers"
)

var (
	t0  = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	key = bgp.InstanceKey{LocalASN: 65001}
)

func nodeConfig(peers ...string) *kbgpv1.BGPNodeConfig {
	nc := &kbgpv1.BGPNodeConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Generation: 7},
		Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		}}},
	}
	for i, p := range peers {
		nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, kbgpv1.BGPNodePeer{
			BGPPeer: kbgpv1.BGPPeer{Name: p, PeerAddress: fmt.Sprintf("10.1.1.%d", i+1), PeerASN: 65002},
		})
	}
	return nc
}

func resolved(source kbgpv1.RouterIDSource) map[int64]routerid.Decision {
	return map[int64]routerid.Decision{65001: {Lock: routerid.Lock{
		RouterID: netip.MustParseAddr("10.0.0.10"), Source: source, Node: "worker-1", ResolvedAt: t0,
		Config: routerid.Config{},
	}}}
}

func established(names ...string) map[bgp.InstanceKey]speakers.InstanceSnapshot {
	snap := speakers.InstanceSnapshot{Peers: map[string]speakers.PeerSnapshot{}}
	for i, n := range names {
		snap.Peers[n] = speakers.PeerSnapshot{
			Peer: bgp.Peer{Address: netip.MustParseAddr(fmt.Sprintf("10.1.1.%d", i+1))},
			Status: bgp.PeerStatus{State: bgp.StateEstablished, EstablishedSince: t0.Add(time.Minute),
				HoldTime: 90 * time.Second, Keepalive: 30 * time.Second,
				ReceivedByFamily: map[bgp.Family]uint64{bgp.FamilyIPv4Unicast: 2, bgp.FamilyIPv6Unicast: 1}},
			// The counts are what the status carries, never the routes: a million
			// routes make the same status as twelve.
			AdvertisedByFamily: map[bgp.Family]int{bgp.FamilyIPv4Unicast: 600_000, bgp.FamilyIPv6Unicast: 400_000},
		}
	}
	return map[bgp.InstanceKey]speakers.InstanceSnapshot{key: snap}
}

func conditions(st kbgpv1.BGPNodeConfigStatus) map[string]string {
	out := map[string]string{}
	for _, c := range st.Conditions {
		out[c.Type] = string(c.Status) + "/" + c.Reason
		if c.ObservedGeneration != 7 {
			out[c.Type] += fmt.Sprintf(" (observedGeneration %d)", c.ObservedGeneration)
		}
	}
	return out
}

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         Input
		conditions map[string]string
		failed     int
		peerState  kbgpv1.PeeringState
	}{
		{
			name: "everything applied, peers up",
			in:   Input{NodeConfig: nodeConfig("tor-a", "tor-b"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: established("tor-a", "tor-b")},
			conditions: map[string]string{"Ready": "True/ConfigurationSuccessful", "Degraded": "False/ConfigurationSuccessful",
				"RouterIDResolved": "True/AutoDetect"},
			peerState: kbgpv1.PeeringStateEstablished,
		},
		{
			// A peer that does not answer is not a configuration failure.
			name: "peer not Established: still Ready",
			in:   Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: resolved(kbgpv1.RouterIDSourceHash), Snapshot: map[bgp.InstanceKey]speakers.InstanceSnapshot{key: {Peers: map[string]speakers.PeerSnapshot{"tor-a": {Status: bgp.PeerStatus{State: bgp.StateActive}}}}}},
			conditions: map[string]string{"Ready": "True/ConfigurationSuccessful", "Degraded": "False/ConfigurationSuccessful",
				"RouterIDResolved": "True/HashFallback"},
			peerState: kbgpv1.PeeringStateActive,
		},
		{
			name: "missing peer config: Degraded, peer Idle",
			in: Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: resolved(kbgpv1.RouterIDSourceExplicit),
				Failed: []kbgpv1.FailedResource{{Kind: "BGPPeerConfig", Name: "rack9", Message: "not found"}}},
			conditions: map[string]string{"Ready": "False/ConfigurationFailed", "Degraded": "True/ConfigurationFailed",
				"RouterIDResolved": "True/Explicit"},
			failed: 1, peerState: kbgpv1.PeeringStateIdle,
		},
		{
			name: "peer refused by the speaker",
			in: Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: resolved(kbgpv1.RouterIDSourceTemplate),
				PeerErrors: map[speakers.PeerRef]error{{Name: "tor-a"}: errors.New("bind: no such device")}},
			conditions: map[string]string{"Ready": "False/ConfigurationFailed", "Degraded": "True/ConfigurationFailed",
				"RouterIDResolved": "True/Template"},
			failed: 1, peerState: kbgpv1.PeeringStateIdle,
		},
		{
			name: "waiting for the Node",
			in: Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: map[int64]routerid.Decision{65001: {
				Err: fmt.Errorf("%w: Node worker-1 reports no addresses yet", routerid.ErrNodeNotReady)}}},
			conditions: map[string]string{"Ready": "False/ConfigurationFailed", "Degraded": "True/ConfigurationFailed",
				"RouterIDResolved": "False/WaitingForNode"},
			peerState: kbgpv1.PeeringStateIdle,
		},
		{
			name: "invalid router-ID configuration",
			in: Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: map[int64]routerid.Decision{65001: {
				Err: fmt.Errorf("%w: bad pool", routerid.ErrInvalidConfig)}}},
			conditions: map[string]string{"Ready": "False/ConfigurationFailed", "Degraded": "True/ConfigurationFailed",
				"RouterIDResolved": "False/RouterIDConfigError"},
			peerState: kbgpv1.PeeringStateIdle,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Build(tc.in)
			if got := conditions(st); fmt.Sprint(got) != fmt.Sprint(tc.conditions) {
				t.Errorf("conditions = %v, want %v", got, tc.conditions)
			}
			if st.ObservedGeneration != 7 || len(st.FailedResources) != tc.failed {
				t.Errorf("observedGeneration %d, failedResources %v", st.ObservedGeneration, st.FailedResources)
			}
			if got := st.BGPInstances[0].Peers[0].PeeringState; got != tc.peerState {
				t.Errorf("peer state = %s, want %s", got, tc.peerState)
			}
		})
	}
}

func TestBuildReportsThePeersAndTheLock(t *testing.T) {
	st := Build(Input{NodeConfig: nodeConfig("tor-a", "tor-b"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: established("tor-a", "tor-b")})
	inst := st.BGPInstances[0]
	if inst.RouterID != "10.0.0.10" || inst.RouterIDSource != kbgpv1.RouterIDSourceNodeIPv4 || inst.RouterIDNode != "worker-1" ||
		!inst.RouterIDResolutionTime.Time.Equal(t0) || inst.RouterIDResolvedFrom == nil {
		t.Fatalf("router-ID fields = %+v", inst)
	}
	p := inst.Peers[1]
	if p.Name != "tor-b" || p.PeerAddress != "10.1.1.2" || p.PeerASN != 65002 || p.RoutesReceived != 3 || p.RoutesAdvertised != 1_000_000 ||
		p.EstablishedTime == nil || !p.EstablishedTime.Time.Equal(t0.Add(time.Minute)) ||
		p.Timers == nil || p.Timers.AppliedHoldTimeSeconds != 90 || p.Timers.AppliedKeepaliveSeconds != 30 {
		t.Fatalf("peer status = %+v", p)
	}
	// B6: the status of a node with 2 peers and a million routes stays small.
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 4096 {
		t.Fatalf("status of 2 peers is %d bytes, want at most 4 KiB", len(b))
	}
}

// TestBuildKeepsTransitionTimes: rebuilding an unchanged status yields the same
// conditions, transition times included, so the writer sees no difference.
func TestBuildKeepsTransitionTimes(t *testing.T) {
	in := Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: established("tor-a")}
	first := Build(in)
	for i := range first.Conditions {
		first.Conditions[i].LastTransitionTime = metav1.NewTime(t0)
	}
	in.Previous = first
	again := Build(in)
	for _, c := range again.Conditions {
		if !c.LastTransitionTime.Time.Equal(t0) {
			t.Fatalf("condition %s moved its transition time to %v", c.Type, c.LastTransitionTime)
		}
	}
	if !meta.IsStatusConditionTrue(again.Conditions, kbgpv1.ConditionReady) {
		t.Fatal("not Ready")
	}
}

// TestBuildLeavesOtherWritersConditions: a condition another writer owns (the pod
// network's) is not carried into the agent's apply, where a stale copy would take it
// over.
func TestBuildLeavesOtherWritersConditions(t *testing.T) {
	in := Input{NodeConfig: nodeConfig("tor-a"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: established("tor-a")}
	in.Previous = Build(in)
	in.Previous.Conditions = append(in.Previous.Conditions, metav1.Condition{Type: "PodNetworkReady", Status: metav1.ConditionTrue})
	if c := meta.FindStatusCondition(Build(in).Conditions, "PodNetworkReady"); c != nil {
		t.Fatalf("the agent's status carries %s, another writer's condition", c.Type)
	}
}

// TestBuildNamesPeerErrorsByInstanceAndVRF: two peers named alike in two VRFs that the
// speakers refused make one entry that tells them apart, in the same words at every
// build (a changing message would be a status write each time).
func TestBuildNamesPeerErrorsByInstanceAndVRF(t *testing.T) {
	in := Input{NodeConfig: nodeConfig("tor-a"), PeerErrors: map[speakers.PeerRef]error{
		{Instance: bgp.InstanceKey{LocalASN: 65001, VRF: "blue"}, Name: "tor-a"}: errors.New("bind: no such device"),
		{Instance: bgp.InstanceKey{LocalASN: 65001, VRF: "red"}, Name: "tor-a"}:  errors.New("connection refused"),
		{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: "tor-a"}:              errors.New("timeout"),
	}}
	want := []kbgpv1.FailedResource{{Kind: "BGPNodeConfig", Name: "worker-1", Message: "peer tor-a of instance 65001: timeout; " +
		"peer tor-a of instance 65001/blue: bind: no such device; peer tor-a of instance 65001/red: connection refused"}}
	for range 20 {
		if diff := cmp.Diff(want, Build(in).FailedResources); diff != "" {
			t.Fatalf("failedResources (-want +got):\n%s", diff)
		}
	}
}

// TestBuildKeepsFailedResourcesWithinTheSchema: many failing peers merge into one entry
// whose message would pass the schema's bound, and many failed resources would pass the
// list's; either makes the API server refuse the whole status.
func TestBuildKeepsFailedResourcesWithinTheSchema(t *testing.T) {
	in := Input{NodeConfig: nodeConfig("tor-a"), PeerErrors: map[speakers.PeerRef]error{}}
	for i := range 30 {
		in.PeerErrors[speakers.PeerRef{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: fmt.Sprintf("tor-%02d", i)}] = errors.New("the speaker refused the peer for a long reason")
	}
	for i := range 100 {
		in.Failed = append(in.Failed, kbgpv1.FailedResource{Kind: "Service", Name: fmt.Sprintf("shop/svc-%03d", i), Message: "refused"})
	}
	got := Build(in).FailedResources
	if len(got) > kbgpv1.MaxFailedResources-kbgpv1.MaxOperatorFailedResources {
		t.Errorf("%d failed resources: the agent's share of the schema's %d is %d", len(got), kbgpv1.MaxFailedResources, kbgpv1.MaxFailedResources-kbgpv1.MaxOperatorFailedResources)
	}
	for _, f := range got {
		if len(f.Message) > kbgpv1.MaxFailedResourceMessage {
			t.Errorf("%s %s: message of %d bytes, the schema allows %d", f.Kind, f.Name, len(f.Message), kbgpv1.MaxFailedResourceMessage)
		}
	}
}

// TestBuildSaysWhyAPeerIsHeldDown: a held-down peer's entry has the reason and the
// message, the message within the schema's bound and on one line.
func TestBuildSaysWhyAPeerIsHeldDown(t *testing.T) {
	snap := established("tor-a", "tor-b")
	p := snap[key].Peers["tor-a"]
	p.Status = bgp.PeerStatus{State: bgp.StateIdle, HeldDown: bgp.HeldDownMaxPrefixes,
		HeldDownDetail: "the peer sent more routes than maxPrefixes (" + strings.Repeat("ipv4-unicast 1000, ", 20) + ") allows;\nretried later"}
	snap[key].Peers["tor-a"] = p
	st := Build(Input{NodeConfig: nodeConfig("tor-a", "tor-b"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: snap})
	held, up := st.BGPInstances[0].Peers[0], st.BGPInstances[0].Peers[1]
	if held.Reason != "MaxPrefixExceeded" || held.PeeringState != kbgpv1.PeeringStateIdle ||
		!strings.HasPrefix(held.Message, "the peer sent more routes than maxPrefixes (ipv4-unicast 1000") {
		t.Errorf("held-down peer: %+v", held)
	}
	if len(held.Message) > maxPeerMessage || strings.Contains(held.Message, "\n") {
		t.Errorf("message of %d bytes (the schema allows %d), one line: %q", len(held.Message), maxPeerMessage, held.Message)
	}
	if up.Reason != "" || up.Message != "" {
		t.Errorf("a peer that is not held down has reason %q, message %q", up.Reason, up.Message)
	}
}

// TestBuildShowsTheASNADynamicPeerHas: a dynamicASN peer's status carries its kind and,
// while it has a session, the ASN the router's OPEN carried; without one no ASN (the
// schema refuses 0).
func TestBuildShowsTheASNADynamicPeerHas(t *testing.T) {
	nc := nodeConfig("tor-a", "tor-b")
	for i := range nc.Spec.BGPInstances[0].Peers {
		p := &nc.Spec.BGPInstances[0].Peers[i]
		p.PeerASN, p.DynamicASN = 0, kbgpv1.DynamicASNExternal
	}
	snap := established("tor-a", "tor-b")
	up := snap[key].Peers["tor-a"]
	up.Status.RemoteASN = 65101
	snap[key].Peers["tor-a"] = up
	down := snap[key].Peers["tor-b"]
	down.Status = bgp.PeerStatus{State: bgp.StateActive}
	snap[key].Peers["tor-b"] = down

	st := Build(Input{NodeConfig: nc, RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: snap})
	a, b := st.BGPInstances[0].Peers[0], st.BGPInstances[0].Peers[1]
	if a.PeerASN != 65101 || a.DynamicASN != kbgpv1.DynamicASNExternal {
		t.Errorf("peer with a session: ASN %d, dynamicASN %q; want 65101, External", a.PeerASN, a.DynamicASN)
	}
	if b.PeerASN != 0 || b.DynamicASN != kbgpv1.DynamicASNExternal {
		t.Errorf("peer without a session: ASN %d, dynamicASN %q; want none, External", b.PeerASN, b.DynamicASN)
	}
}

// TestBuildReportsAddPaths: each family configured for ADD-PATH send is reported,
// Negotiated where the peer receives several paths; a peer without addPaths reports
// nothing.
func TestBuildReportsAddPaths(t *testing.T) {
	snap := established("tor-a", "tor-b")
	p := snap[key].Peers["tor-a"]
	p.Peer.AddPathsSend = map[bgp.Family]uint8{bgp.FamilyIPv4Unicast: 4, bgp.FamilyIPv6Unicast: 4}
	p.Status.AddPathsSend = map[bgp.Family]bool{bgp.FamilyIPv6Unicast: true}
	snap[key].Peers["tor-a"] = p
	st := Build(Input{NodeConfig: nodeConfig("tor-a", "tor-b"), RouterIDs: resolved(kbgpv1.RouterIDSourceNodeIPv4), Snapshot: snap})
	want := []kbgpv1.BGPAddPathsStatus{
		{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Send: kbgpv1.AddPathsNotNegotiated},
		{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Send: kbgpv1.AddPathsNegotiated},
	}
	if got := st.BGPInstances[0].Peers[0].AddPaths; !cmp.Equal(got, want) {
		t.Errorf("tor-a addPaths = %+v, want %+v", got, want)
	}
	if got := st.BGPInstances[0].Peers[1].AddPaths; got != nil {
		t.Errorf("tor-b (no addPaths) reports %+v", got)
	}
}
