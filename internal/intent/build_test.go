package intent

import (
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/routerid"
)

var cmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
	cmpopts.EquateEmpty(),
}

func node() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Annotations: map[string]string{"rid": "10.9.9.9"}},
		Spec:       corev1.NodeSpec{PodCIDRs: []string{"10.244.1.0/24", "2001:db8:244:1::/64"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "2001:db8::10"},
			{Type: corev1.NodeInternalIP, Address: "10.0.0.10"},
		}},
	}
}

func nodeConfig(routerID string, peers ...kbgpv1.BGPNodePeer) *kbgpv1.BGPNodeConfig {
	return &kbgpv1.BGPNodeConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
		Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID},
			Peers:               peers,
		}}},
	}
}

func nodePeer(name, addr string, asn int64, ref string) kbgpv1.BGPNodePeer {
	p := kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn}}
	if ref != "" {
		p.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: ref}
	}
	return p
}

func defaultPeer(name, addr string, asn uint32) bgp.Peer {
	return bgp.Peer{
		Name: name, Address: netip.MustParseAddr(addr), ASN: asn, Port: 179,
		Timers:   bgp.Timers{ConnectRetry: 120 * time.Second, HoldTime: 90 * time.Second, Keepalive: 30 * time.Second},
		Families: []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast},
	}
}

var key = bgp.InstanceKey{LocalASN: 65001}

// build decides the router IDs from the node (no locks) and builds.
func build(in Input) Result {
	var insts []kbgpv1.BGPNodeInstance
	if in.NodeConfig != nil {
		insts = in.NodeConfig.Spec.BGPInstances
	}
	in.RouterIDs = map[int64]netip.Addr{}
	for asn, d := range routerid.Decide(routerid.DecideInput{Instances: insts, NodeName: "worker-1", Node: in.Node}) {
		if d.Err == nil {
			in.RouterIDs[asn] = d.Lock.RouterID
		}
	}
	return Build(in)
}

func global(rid string) bgp.Global {
	return bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr(rid)}
}

func oneInstance(g bgp.Global, peers ...bgp.DesiredPeer) bgp.Desired {
	di := bgp.DesiredInstance{Global: g, Peers: map[string]bgp.DesiredPeer{}}
	for _, p := range peers {
		di.Peers[p.Name] = p
	}
	return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{key: di}}
}

// desiredPeer is p with export; unless p sets MaxPrefixes, its families have the
// default cap.
func desiredPeer(p bgp.Peer, export ...bgp.Path) bgp.DesiredPeer {
	if p.MaxPrefixes == nil {
		p.MaxPrefixes = map[bgp.Family]uint32{}
		for _, f := range p.Families {
			p.MaxPrefixes[f] = kbgpv1.DefaultMaxPrefixes
		}
	}
	set := map[netip.Prefix]bgp.PathAttributes{}
	for _, e := range export {
		set[e.Prefix] = e.Attributes
	}
	return bgp.DesiredPeer{Peer: p, Export: set}
}

func fullPeerConfig() *kbgpv1.BGPPeerConfig {
	return &kbgpv1.BGPPeerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "rack1"},
		Spec: kbgpv1.BGPPeerConfigSpec{
			Transport:       &kbgpv1.BGPTransport{PeerPort: ptr.To[int32](1179), LocalPort: ptr.To[int32](40000)},
			Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](5), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
			GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](60), LongLivedStaleTimeSeconds: ptr.To[int32](3600)},
			EBGPMultihop:    ptr.To[int32](4),
			AuthSecretRef:   ptr.To("bgp-auth"),
			Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast}},
		},
	}
}

func secret(data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bgp-auth"}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func TestBuildPeers(t *testing.T) {
	full := defaultPeer("tor", "10.1.1.1", 65002)
	full.Port, full.LocalPort = 1179, 40000
	full.Timers = bgp.Timers{ConnectRetry: 5 * time.Second, HoldTime: 9 * time.Second, Keepalive: 3 * time.Second}
	full.GracefulRestart = bgp.GracefulRestart{Enabled: true, RestartTime: 60 * time.Second, LongLivedStaleTime: time.Hour}
	full.EBGPMultihopTTL = 4
	full.Families = []bgp.Family{bgp.FamilyIPv4Unicast}
	full.Password = "s3cret"

	ibgp := full
	ibgp.ASN = 65001
	ibgp.EBGPMultihopTTL = 0

	anyExternal, anyInternal := full, ibgp
	anyExternal.ASN, anyExternal.DynamicASN = 0, bgp.ASNExternal
	anyInternal.ASN, anyInternal.DynamicASN = 0, bgp.ASNInternal
	dynamic := func(kind kbgpv1.DynamicASN) kbgpv1.BGPNodePeer {
		p := nodePeer("tor", "10.1.1.1", 0, "rack1")
		p.DynamicASN = kind
		return p
	}

	overridden := defaultPeer("tor", "10.1.1.1", 65002)
	overridden.LocalAddress = netip.MustParseAddr("10.1.1.10")
	overridden.LocalPort = 40179
	withOverride := nodePeer("tor", "10.1.1.1", 65002, "")
	withOverride.LocalAddress = "10.1.1.10"
	withOverride.LocalPort = ptr.To[int32](40179)

	previous := oneInstance(global("10.0.0.10"), desiredPeer(full))

	tests := []struct {
		name       string
		in         Input
		want       bgp.Desired
		wantFailed []kbgpv1.FailedResource
	}{{
		name: "no peer config: defaults, router ID from the node's InternalIP IPv4",
		in:   Input{NodeConfig: nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "")), Node: node()},
		want: oneInstance(global("10.0.0.10"), desiredPeer(defaultPeer("tor", "10.1.1.1", 65002))),
	}, {
		name: "peer config with every field and the MD5 password from the Secret",
		in: Input{
			NodeConfig:  nodeConfig("10.10.10.10", nodePeer("tor", "10.1.1.1", 65002, "rack1")),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Secrets:     map[string]*corev1.Secret{"bgp-auth": secret(map[string]string{"password": "s3cret"})},
		},
		want: oneInstance(global("10.10.10.10"), desiredPeer(full)),
	}, {
		name: "eBGP multihop is ignored for iBGP",
		in: Input{
			NodeConfig:  nodeConfig("", nodePeer("tor", "10.1.1.1", 65001, "rack1")),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Secrets:     map[string]*corev1.Secret{"bgp-auth": secret(map[string]string{"password": "s3cret"})},
		},
		want: oneInstance(global("10.0.0.10"), desiredPeer(ibgp)),
	}, {
		name: "any external ASN: eBGP, multihop kept",
		in: Input{
			NodeConfig:  nodeConfig("", dynamic(kbgpv1.DynamicASNExternal)),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Secrets:     map[string]*corev1.Secret{"bgp-auth": secret(map[string]string{"password": "s3cret"})},
		},
		want: oneInstance(global("10.0.0.10"), desiredPeer(anyExternal)),
	}, {
		name: "any internal ASN: iBGP, multihop ignored",
		in: Input{
			NodeConfig:  nodeConfig("", dynamic(kbgpv1.DynamicASNInternal)),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Secrets:     map[string]*corev1.Secret{"bgp-auth": secret(map[string]string{"password": "s3cret"})},
		},
		want: oneInstance(global("10.0.0.10"), desiredPeer(anyInternal)),
	}, {
		name: "node override of local address and port",
		in:   Input{NodeConfig: nodeConfig("", withOverride), Node: node()},
		want: oneInstance(global("10.0.0.10"), desiredPeer(overridden)),
	}, {
		name: "Secret without the password key: peer not started, never an empty password",
		in: Input{
			NodeConfig:  nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "rack1")),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Secrets:     map[string]*corev1.Secret{"bgp-auth": secret(map[string]string{"pass": "s3cret"})},
		},
		want:       oneInstance(global("10.0.0.10")),
		wantFailed: []kbgpv1.FailedResource{{Kind: "Secret", Name: "bgp-auth", Message: `has no "password" key; peers using it are not started`}},
	}, {
		name: "Secret deleted under a running peer: the last good peer keeps running",
		in: Input{
			NodeConfig:  nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "rack1")),
			Node:        node(),
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rack1": fullPeerConfig()},
			Previous:    previous,
		},
		want:       previous,
		wantFailed: []kbgpv1.FailedResource{{Kind: "Secret", Name: "bgp-auth", Message: "not found; peer tor keeps running with its last good configuration"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := build(tc.in)
			if diff := cmp.Diff(tc.want, got.Desired, cmpOpts...); diff != "" {
				t.Errorf("desired (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFailed, got.Failed, cmpOpts...); diff != "" {
				t.Errorf("failed resources (-want +got):\n%s", diff)
			}
			for _, f := range got.Failed {
				if strings.Contains(f.Message, "s3cret") {
					t.Errorf("failed resource reveals the password: %+v", f)
				}
			}
		})
	}
}

func TestBuildWithoutRouterIDStartsNothing(t *testing.T) {
	in := Input{NodeConfig: nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "")), Node: node()}
	if got := Build(in).Desired.Instances; len(got) != 0 {
		t.Fatalf("an instance without a router ID runs: %+v", got)
	}
	prev := build(in).Desired
	in.Previous = prev
	if got := Build(in).Desired; !cmp.Equal(got, prev, cmpOpts...) {
		t.Fatalf("an instance that lost its router ID does not keep running as it was: %+v", got)
	}
}

func TestMaxPrefixesPerFamily(t *testing.T) {
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "capped"}, Spec: kbgpv1.BGPPeerConfigSpec{Families: []kbgpv1.BGPFamily{
		{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, MaxPrefixes: ptr.To[int64](1000)},
		{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast},
	}}}
	in := Input{NodeConfig: nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "capped")), Node: node(),
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"capped": pc}}
	got := build(in).Desired.Instances[bgp.InstanceKey{LocalASN: 65001}].Peers["tor"].MaxPrefixes
	if want := map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: 1000, bgp.FamilyIPv6Unicast: kbgpv1.DefaultMaxPrefixes}; !maps.Equal(got, want) {
		t.Errorf("MaxPrefixes = %v, want %v (the default for IPv6)", got, want)
	}
}

func TestListenAddresses(t *testing.T) {
	listening := func(addrs ...kbgpv1.IPAddress) *kbgpv1.BGPNodeConfig {
		nc := nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, ""))
		nc.Spec.BGPInstances[0].LocalPort = ptr.To[int32](179)
		nc.Spec.BGPInstances[0].ListenAddresses = addrs
		return nc
	}
	noInternalIP := node()
	noInternalIP.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.9"}}
	for _, tc := range []struct {
		name       string
		nc         *kbgpv1.BGPNodeConfig
		node       *corev1.Node
		wantPort   uint16
		wantAddrs  []string
		wantFailed bool
	}{
		{"configured addresses", listening("10.1.1.10", "2001:db8::1"), node(), 179, []string{"10.1.1.10", "2001:db8::1"}, false},
		{"default: the Node's InternalIPs, never every address", listening(), node(), 179, []string{"10.0.0.10", "2001:db8::10"}, false},
		{"no InternalIP and none configured: not listening, reported", listening(), noInternalIP, 0, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{NodeConfig: tc.nc, Node: tc.node, RouterIDs: map[int64]netip.Addr{65001: netip.MustParseAddr("10.0.0.10")}}
			res := Build(in)
			g := res.Desired.Instances[bgp.InstanceKey{LocalASN: 65001}].Global
			var got []string
			for _, a := range g.ListenAddresses {
				got = append(got, a.String())
			}
			if g.ListenPort != tc.wantPort || !slices.Equal(got, tc.wantAddrs) {
				t.Errorf("listen port %d on %v, want %d on %v", g.ListenPort, got, tc.wantPort, tc.wantAddrs)
			}
			if failed := len(res.Failed) > 0; failed != tc.wantFailed {
				t.Errorf("failed resources %v", res.Failed)
			}
		})
	}
}
