package kubectlbgp

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// peersFixture lists nodes, instances and peers out of order, with the same peer name
// in two VRFs and ASNs whose string order differs from their numeric order.
func peersFixture() []kbgpv1.BGPNodeConfig {
	return []kbgpv1.BGPNodeConfig{
		nodeConfigWithStatus("worker-2", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
			{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{sessionStatus("tor-a", "10.2.1.1", "", kbgpv1.PeeringStateActive, 0)}},
		}}),
		nodeConfigWithStatus("worker-1", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
			{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{
				sessionStatus("tor-b", "10.1.1.2", "", kbgpv1.PeeringStateEstablished, 2*time.Hour),
				sessionStatus("tor-a", "10.1.1.1", "red", kbgpv1.PeeringStateEstablished, 5*time.Minute+3*time.Second),
				sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateEstablished, 49*time.Hour),
			}},
			{LocalASN: 9, Peers: []kbgpv1.BGPNodePeerStatus{sessionStatus("rr", "10.9.9.9", "", "", 0)}},
		}}),
		nodeConfigWithStatus("worker-3", kbgpv1.BGPNodeConfigStatus{}),
	}
}

func TestPeerRowsSortedByNodeASNVRFName(t *testing.T) {
	want := [][]string{
		{"worker-1", "9", "rr", "10.9.9.9", "-", "-", "-", "0", "0"},
		{"worker-1", "65001", "tor-a", "10.1.1.1", "-", "Established", "2d1h", "3", "12"},
		{"worker-1", "65001", "tor-b", "10.1.1.2", "-", "Established", "120m", "3", "12"},
		{"worker-1", "65001", "tor-a", "10.1.1.1", "red", "Established", "5m3s", "3", "12"},
		{"worker-2", "65001", "tor-a", "10.2.1.1", "-", "Active", "-", "0", "0"},
	}
	if diff := cmp.Diff(want, peerRows(peersFixture(), now, false)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// A peer over an interface shows the interface and the router found on it, or the
// interface alone until one is found.
func TestPeerRowsOfInterfacePeers(t *testing.T) {
	up1 := sessionStatus("tor-1", "fe80::1", "", kbgpv1.PeeringStateEstablished, time.Minute)
	up1.Interface = "up1"
	up2 := sessionStatus("tor-2", "", "", kbgpv1.PeeringStateIdle, 0)
	up2.Interface = "up2"
	ncs := []kbgpv1.BGPNodeConfig{nodeConfigWithStatus("host-1", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
		{LocalASN: 65034, Peers: []kbgpv1.BGPNodePeerStatus{up1, up2}}}})}
	rows := peerRows(ncs, now, false)
	if got := []string{rows[0][3], rows[1][3]}; !cmp.Equal(got, []string{"up1 fe80::1", "up2"}) {
		t.Errorf("peer cells %q, want the interface with the router found on it", got)
	}
}

func TestPeerRowsWide(t *testing.T) {
	ncs := peersFixture()
	ncs[1].Status.BGPInstances[0].Peers[2].BFDState = kbgpv1.BFDStateUp // worker-1's tor-a, sorted second
	rows := peerRows(ncs, now, true)
	if got, want := len(rows[0]), len(peersHeader(true)); got != want {
		t.Fatalf("wide row has %d cells, header %d", got, want)
	}
	if diff := cmp.Diff([]string{"65002", "-", "-", "-", "-"}, rows[0][9:]); diff != "" {
		t.Errorf("wide cells of a session that never came up (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"65002", "90s/30s", "Up", "-", "-"}, rows[1][9:]); diff != "" {
		t.Errorf("wide cells of an established session (-want +got):\n%s", diff)
	}
}

// TestPeerCellsImportAndAddPaths: -o wide shows what an importing peer's routes became
// in the kernel and, per family configured with ADD-PATH send, whether it was agreed.
func TestPeerCellsImportAndAddPaths(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name           string
		installed, rej *int64
		addPaths       []kbgpv1.BGPAddPathsStatus
		want           []string
	}{
		{"neither", nil, nil, nil, []string{"-", "-"}},
		{"importing, nothing refused", n(3), n(0), nil, []string{"3/0", "-"}},
		{"importing, some refused", n(1), n(5), nil, []string{"1/5", "-"}},
		{"ADD-PATH in both families", nil, nil, []kbgpv1.BGPAddPathsStatus{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Send: kbgpv1.AddPathsNegotiated},
			{AFI: "ipv6", SAFI: kbgpv1.SAFIUnicast, Send: kbgpv1.AddPathsNotNegotiated}}, []string{"-", "ipv4:Negotiated,ipv6:NotNegotiated"}},
		{"a SAFI other than unicast is named, forged text stays on its line", n(0), n(2), []kbgpv1.BGPAddPathsStatus{
			{AFI: kbgpv1.AFIIPv4, SAFI: "multicast", Send: "Negotiated\nforged"}}, []string{"0/2", "ipv4/multicast:Negotiated_forged"}},
	} {
		p := sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateEstablished, time.Minute)
		p.RoutesInstalled, p.RoutesRejected, p.AddPaths = tc.installed, tc.rej, tc.addPaths
		c := peerCells("worker-1", 65001, p, now, true)
		if diff := cmp.Diff(tc.want, c[len(c)-2:]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	header := peersHeader(true)
	if diff := cmp.Diff([]string{"INSTALLED/REJECTED", "ADD-PATH"}, header[len(header)-2:]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
}

func TestPeersTable(t *testing.T) {
	got := strings.Join(formatTable(peersHeader(false), peerRows(peersFixture()[:1], now, false)), "\n")
	want := `NODE       ASN     PEER    ADDRESS    VRF   STATE    SINCE   RECEIVED   ADVERTISED
worker-2   65001   tor-a   10.2.1.1   -     Active   -       0          0`
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestPeerCellsSanitised(t *testing.T) {
	nc := nodeConfigWithStatus("evil\nnode", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
		{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{sessionStatus("a\rb", "10.0.0.1\x00", "v\tx", "", 0)}},
	}})
	lines := formatTable(peersHeader(false), peerRows([]kbgpv1.BGPNodeConfig{nc}, now, false))
	if len(lines) != 2 {
		t.Fatalf("want header and one row, got %d lines: %q", len(lines), lines)
	}
	for _, s := range []string{"evil_node", "a_b", "10.0.0.1_", "v x"} {
		if !strings.Contains(lines[1], s) {
			t.Errorf("row %q lacks sanitised %q", lines[1], s)
		}
	}
}

func TestPeerStateNamesWhyItIsHeldDown(t *testing.T) {
	p := sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateIdle, 0)
	p.Reason = "MaxPrefixExceeded"
	if got := peerState(p); got != "Idle (MaxPrefixExceeded)" {
		t.Errorf("state cell %q", got)
	}
	if got := peerState(sessionStatus("tor-b", "10.1.1.2", "", kbgpv1.PeeringStateEstablished, 0)); got != "Established" {
		t.Errorf("state cell without a reason %q", got)
	}
}

func TestPeerRowsMarkMeshSessions(t *testing.T) {
	peers := []kbgpv1.BGPNodePeerStatus{
		sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateEstablished, time.Hour),
		sessionStatus("mesh-n2-v4", "10.1.0.2", "", kbgpv1.PeeringStateEstablished, time.Hour),
		sessionStatus("mesh-r1-v4", "10.1.0.11", "", kbgpv1.PeeringStateEstablished, time.Hour),
		sessionStatus("mesh-n3-v4", "10.1.0.3", "", kbgpv1.PeeringStateEstablished, time.Hour),
	}
	peers[1].MeshRole, peers[2].MeshRole, peers[3].MeshRole = kbgpv1.MeshRolePeer, kbgpv1.MeshRoleReflector, kbgpv1.MeshRoleClient
	ncs := []kbgpv1.BGPNodeConfig{nodeConfigWithStatus("n1", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, Peers: peers}}})}
	var got []string
	for _, r := range peerRows(ncs, now, false) {
		got = append(got, r[2])
	}
	want := []string{"mesh-n2-v4 (mesh)", "mesh-n3-v4 (rr-client)", "mesh-r1-v4 (reflector)", "tor-a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peer cells (-want +got):\n%s", diff)
	}
}
