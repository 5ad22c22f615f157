//go:build bench

package bench

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

const (
	// benchNamespace is where the agent looks for Secrets.
	benchNamespace = "kbgp-system"
	// speakerASN is every speaker's AS, peerASN FRR's.
	speakerASN = 65001
	peerASN    = 65010
	// benchLabel selects the benchmark's advertisements from the peer config.
	benchLabel = "kbgp.io/bench"
)

// speaker is one speaker under test: its namespace and its end of the link to FRR
// (10.1.N.1/30; FRR is 10.1.N.2).
type speaker struct {
	name string
	ns   *netlab.Namespace
	addr netip.Addr
	frr  netip.Addr
}

// peerLab is one FRR peer in its own namespace and, per speaker, a node namespace
// linked to it. FRR's neighbors start shut down when the lab is made for a cold start,
// so that every speaker can load its routes before its session comes up.
type peerLab struct {
	lab      *netlab.Lab
	frr      *netlab.FRR
	speakers map[string]speaker
}

// newPeerLab builds the topology for the named speakers. FRR's timers match kbgp's
// peer config (connect 1 s, hold 9 s, keepalive 3 s), so every speaker negotiates the
// same; shutdown keeps every neighbor down until up is called.
func newPeerLab(t *testing.T, shutdown bool, names ...string) *peerLab {
	l := &peerLab{lab: netlab.New(t), speakers: map[string]speaker{}}
	frrNS := l.lab.Namespace("frr")
	var cfg strings.Builder
	for i, name := range names {
		s := speaker{name: name, ns: l.lab.Namespace(name),
			addr: netip.MustParseAddr(fmt.Sprintf("10.1.%d.1", i+1)), frr: netip.MustParseAddr(fmt.Sprintf("10.1.%d.2", i+1))}
		l.lab.Link(s.ns, "to-frr", []string{s.addr.String() + "/30"}, frrNS, "to-"+name, []string{s.frr.String() + "/30"})
		fmt.Fprintf(&cfg, "neighbor %s remote-as %d\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", s.addr, speakerASN, s.addr, s.addr)
		if shutdown {
			fmt.Fprintf(&cfg, "neighbor %s shutdown\n", s.addr)
		}
		l.speakers[name] = s
	}
	l.frr = netlab.StartFRR(frrNS, netlab.FRRConfig{ASN: peerASN, RouterID: "10.1.0.2", RawConfig: cfg.String()})
	return l
}

// up brings FRR's session with the speaker up ("no neighbor X shutdown").
func (l *peerLab) up(t *testing.T, name string) {
	l.frr.MustConfigure(fmt.Sprintf("router bgp %d", peerASN), fmt.Sprintf("no neighbor %s shutdown", l.speakers[name].addr))
}

// down shuts FRR's session with the speaker down and waits until FRR holds none of
// its routes.
func (l *peerLab) down(t *testing.T, name string) {
	addr := l.speakers[name].addr.String()
	l.frr.MustConfigure(fmt.Sprintf("router bgp %d", peerASN), fmt.Sprintf("neighbor %s shutdown", addr))
	waitNeighbor(t, l.frr, addr, 5*time.Minute, func(s neighborSample) bool { return s.state != "Established" && s.accepted == 0 })
}

// kbgpNode creates the objects of one kbgp node peering with FRR (see kbgpNodeObjects)
// and starts the agent for it.
func kbgpNode(t *testing.T, server *apiserver.Server, l *peerLab) *agentProcess {
	kbgpNodeObjects(t, server, l)
	return startAgent(t, server, l.lab, l.speakers["kbgp"].ns, "bench-node")
}

// kbgpNodeObjects creates the objects of one kbgp node peering with FRR: one
// instance, one IPv4 peer whose family selects advertisements labelled
// benchLabel=kbgp.
func kbgpNodeObjects(t *testing.T, server *apiserver.Server, l *peerLab) {
	s := l.speakers["kbgp"]
	c := server.Client
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{benchLabel: "kbgp"}}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bench-node"}},
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "bench-frr"}, Spec: kbgpv1.BGPPeerConfigSpec{
			Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
			// FRR sends kbgp's routes back to it (no sender-side loop detection by
			// default), and GoBGP counts those it rejects for the AS path loop too: past
			// 100k routes that is more than the default maxPrefixes, and the session
			// would be held down.
			Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel, MaxPrefixes: ptr.To[int64](benchMaxPrefixes)}},
		}},
		&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "bench-node"}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: speakerASN, RouterID: s.addr.String()},
			Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "frr", PeerAddress: s.frr.String(), PeerASN: peerASN,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "bench-frr"}}}},
		}}}},
	} {
		mustCreate(t, c, o)
	}
}

// benchMaxAddressesPerService is the bench advertisement's maxAddressesPerService, the
// schema's maximum; createExternalIPServices puts no more on one Service.
const benchMaxAddressesPerService = 4096

// benchMaxPrefixes is the bench peer's maxPrefixes: above any table a benchmark sends
// (1M routes and their padding).
const benchMaxPrefixes = 4_000_000

// serviceAdvertisement advertises the given address kinds of every Service to the
// kbgp node's peer.
// benchRanges allow every address the benchmarks' Services use: the bulk routes,
// B8's pools and the load-balancer IPs of B2 and B3 (lbBlock).
var benchRanges = []kbgpv1.CIDR{"10.128.0.0/9", "198.18.0.0/15", "100.64.0.0/10"}

func serviceAdvertisement(kinds ...kbgpv1.ServiceAddressType) *kbgpv1.BGPAdvertisement {
	return &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-services", Labels: map[string]string{benchLabel: "kbgp"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			// The bulk ranges of B1-B3 (10.128.0.0/9) and B6 (198.18.0.0/15).
			Service: &kbgpv1.ServiceAdvertisement{Addresses: kinds, ExternalIPPrefixes: benchRanges, LoadBalancerIPPrefixes: benchRanges,
				// The bulk benchmarks put many external IPs on one Service, above the default cap of 8.
				MaxAddressesPerService: ptr.To[int32](benchMaxAddressesPerService)},
			Attributes: benchAttributes(),
		}}},
	}
}

// benchAttributes are the attributes kbgp's Services are sent with: none, or with
// $KBGP_BENCH_ADVERTISE_ATTRIBUTES set a community, a large community and a MED, as
// many users' advertisements have (each is an action of kbgp's export statements, so
// this measures what those cost). The other speakers send none either way.
func benchAttributes() *kbgpv1.BGPAttributes {
	if os.Getenv("KBGP_BENCH_ADVERTISE_ATTRIBUTES") == "" {
		return nil
	}
	return &kbgpv1.BGPAttributes{
		Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:100"}, Large: []kbgpv1.LargeCommunity{"65001:1:2"}},
		MED:         ptr.To[int64](50),
	}
}

// waitAgentAdvertises waits until the node's status counts n routes for the peer,
// whatever the session state: the count comes from the agent's applied export set, so
// it shows that the routes are loaded into the speaker before the session is up.
func waitAgentAdvertises(t *testing.T, c client.Client, n int64, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	last := int64(-1)
	for time.Now().Before(deadline) {
		nc := &kbgpv1.BGPNodeConfig{}
		if err := c.Get(context.Background(), types.NamespacedName{Name: "bench-node"}, nc); err != nil {
			t.Fatal(err)
		}
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				last = p.RoutesAdvertised
			}
		}
		if last == n {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("after %s the agent's status counts %d routes advertised, want %d", timeout, last, n)
}
