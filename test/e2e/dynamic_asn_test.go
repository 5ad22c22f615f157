package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestDynamicASNOverInterfaces: peers over interfaces with no ASN written, FRR's
// "remote-as external|internal" on kbgp's side. An external ToR comes up and the
// status shows the ASN its OPEN carried; a ToR of the node's own ASN is refused (Bad
// Peer AS) while the peer says External, and comes up once it says Internal.
func TestDynamicASNOverInterfaces(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	node := lab.Namespace("node")
	nodeName := "e2e-dynasn-" + strings.Trim(lab.Prefix(), "-")
	const localASN = 65036
	tors := map[string]*netlab.FRR{}
	for up, asn := range map[string]uint32{"up1": 65101, "up2": localASN} {
		ns := lab.Namespace("tor" + up[2:])
		lab.Link(node, up, nil, ns, "to-node", nil)
		tors[up] = netlab.StartFRR(ns, netlab.FRRConfig{
			ASN: asn, RouterID: "10.36.0." + up[2:], Zebra: true,
			RawConfig: `
neighbor to-node interface remote-as ` + map[bool]string{true: "internal", false: "external"}[asn == localASN] + `
neighbor to-node timers connect 1
`,
		})
	}

	ensureNamespace(t)
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:   &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast}, {AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast}},
	}}
	peer := func(name, iface string) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, Interface: iface, DynamicASN: kbgpv1.DynamicASNExternal,
			PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}
	}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: localASN, RouterID: "10.36.255.1"},
		Peers:               []kbgpv1.BGPNodePeer{peer("tor1", "up1"), peer("tor2", "up2")},
	}}}}
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}, pc, nc)
	startAgent(t, lab, node, nodeName)

	tors["up1"].WaitNeighborState(t, "to-node", "Established", sessionTimeout)
	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		p := peerStatus(t, nodeName, "tor1")
		return p.PeeringState == kbgpv1.PeeringStateEstablished && p.PeerASN == 65101 && p.DynamicASN == kbgpv1.DynamicASNExternal,
			fmt.Sprintf("tor1 status: %s, ASN %d, dynamicASN %s", p.PeeringState, p.PeerASN, p.DynamicASN)
	})

	// tor2 is internal: refused while the peer takes external ASNs only. FRR dials
	// every second; ten seconds see several refusals.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if p := peerStatus(t, nodeName, "tor2"); p.PeeringState == kbgpv1.PeeringStateEstablished {
			t.Fatalf("tor2 (AS %d, the node's own) Established with a peer taking external ASNs only", p.PeerASN)
		}
	}
	// FRR's neighbour JSON keeps no reason for a session that never came up; its log does.
	if log := tors["up2"].Log(); !strings.Contains(log, "received from neighbor to-node 2/2 (OPEN Message Error/Bad Peer AS)") {
		t.Errorf("tor2 never received Bad Peer AS from the node; its log:\n%s", log)
	}

	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) {
		nc.Spec.BGPInstances[0].Peers[1].DynamicASN = kbgpv1.DynamicASNInternal
	})
	tors["up2"].WaitNeighborState(t, "to-node", "Established", sessionTimeout)
	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		p := peerStatus(t, nodeName, "tor2")
		return p.PeeringState == kbgpv1.PeeringStateEstablished && p.PeerASN == localASN, "tor2 status: " + string(p.PeeringState)
	})
}
