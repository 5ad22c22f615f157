package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// validObjects are edge cases the schema must accept: a rule that refuses these is too
// strict for real networks.
var validObjects = []struct {
	name string
	kind string
	spec string
}{
	{"same address in two VRFs", clusterConfig, clusterPeers("- {name: red, peerAddress: 10.1.1.1, peerASN: 65002, vrf: red}\n- {name: blue, peerAddress: 10.1.1.1, peerASN: 65002, vrf: blue}\n- {name: default, peerAddress: 10.1.1.1, peerASN: 65002}")},
	{"IPv6 peer", clusterConfig, clusterPeers(`- {name: v6, peerAddress: "2001:db8::1", peerASN: 4294967295}`)},
	{"routerID IPv4", clusterConfig, clusterRouterID("10.0.0.1")},
	{"routerID NODE_IP", clusterConfig, clusterRouterID("${NODE_IP}")},
	{"routerID NODE_IPV4", clusterConfig, clusterRouterID("${NODE_IPV4}")},
	{"routerID NODE_EXTERNAL_IP", clusterConfig, clusterRouterID("${NODE_EXTERNAL_IP}")},
	{"routerID prefixed annotation", clusterConfig, clusterRouterID("${node.annotations['kbgp.io/router-id']}")},
	{"routerID plain annotation", clusterConfig, clusterRouterID("${node.annotations['router_id.v4']}")},
	{"routerID annotation name of 63", clusterConfig, clusterRouterID("${node.annotations['kbgp.io/" + strings.Repeat("n", 63) + "']}")},
	{"routerIDPool /24", clusterConfig, clusterInstance("routerIDPool: 172.16.0.0/24")},
	{"routerIDPool /8", clusterConfig, clusterInstance("routerIDPool: 10.0.0.0/8")},
	{"ASN bounds", clusterConfig, `{bgpInstances: [{localASN: 1, peers: [{name: a, peerAddress: 10.1.1.1, peerASN: 4294967295}]}, {localASN: 4294967295}]}`},
	{"selector expressions", clusterConfig, clusterSelector("matchExpressions:\n- {key: kubernetes.io/os, operator: In, values: [linux]}\n- {key: node-role.kubernetes.io/control-plane, operator: DoesNotExist}")},
	{"mesh with reflectors", clusterConfig, clusterInstance("localPort: 179\nmesh: {enabled: true, peerConfigRef: {name: mesh}, routeReflectors: {nodeSelector: {matchLabels: {rr: \"true\"}}, clusterID: 10.0.0.1}}")},
	{"mesh off without localPort", clusterConfig, clusterInstance("mesh: {enabled: false}")},
	{"import policies", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {allowDefaultRoute: true, maxRoutes: 10, prefixes: [{prefix: 10.0.0.0/8, ge: 16, le: 24}, {prefix: 172.16.0.0/12}]}}, {afi: ipv6, safi: unicast, import: {prefixes: [{prefix: "2001:db8::/32", le: 64}]}}]}`},
	{"fast timers", peerConfig, `{timers: {holdTimeSeconds: 3, keepAliveTimeSeconds: 1, connectRetryTimeSeconds: 1}}`},
	{"equal hold and keepalive", peerConfig, `{timers: {holdTimeSeconds: 30, keepAliveTimeSeconds: 30}}`},
	{"restart time bounds", peerConfig, `{gracefulRestart: {enabled: true, restartTimeSeconds: 4095}}`},
	{"long-lived stale time bounds", peerConfig, `{gracefulRestart: {enabled: true, restartTimeSeconds: 1, longLivedStaleTimeSeconds: 16777215}}`},
	{"addPaths sendMax bounds", peerConfig, `{families: [{afi: ipv4, safi: unicast, addPaths: {sendMax: 1}}, {afi: ipv6, safi: unicast, addPaths: {sendMax: 255}}]}`},
	{"one family", peerConfig, `{families: [{afi: ipv6, safi: unicast, advertisements: {}}]}`},
	{"community bounds", advertisement, serviceAdvertisement(`attributes: {communities: {standard: ["0:0", "65535:65535"], large: ["0:0:0", "4294967295:4294967295:4294967295"], wellKnown: [no-export, no-advertise, no-export-subconfed, no-peer, blackhole, graceful-shutdown]}, localPreference: 4294967295}`)},
	{"aggregation length bounds", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ClusterIP, LoadBalancerIP], aggregationLengthIPv4: 1, aggregationLengthIPv6: 128}}, {advertisementType: Service, service: {addresses: [ExternalIP], aggregationLengthIPv4: 32, aggregationLengthIPv6: 1}}]}`},
	{"prepend and MED bounds", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 10, asn: 4294967295}, med: 4294967295}`)},
	{"prepend of the local ASN, MED 0", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 1}, med: 0}`)},
	{"allowed ranges, both families", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [LoadBalancerIP, ExternalIP], loadBalancerIPPrefixes: [203.0.113.0/24, "2001:db8:1::/48"], externalIPPrefixes: [198.51.100.0/26, "::/0"]}}]}`},
	{"service pseudo-labels", advertisement, serviceAdvertisement(`selector: {matchLabels: {kbgp.io/service-name: web, kbgp.io/service-namespace: shop}}`)},
	{"address cap bounds", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ExternalIP], maxAddressesPerService: 1}}, {advertisementType: Service, service: {addresses: [ExternalIP], maxAddressesPerService: 4096}}]}`},
	{"every service address", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [LoadBalancerIP, ClusterIP, ExternalIP]}}]}`},
	{"override without instances", override, `{nodeRef: worker-1}`},
	{"policy of the document, neighbour as IP/128", policy, policyNeighbor(`{peerAddress: "fc00:f853:ccd:e793::50/128", peerASN: 64512, eBGPMultihopTTL: 10, connectRetryTimeSeconds: 120, holdTimeSeconds: 90, keepAliveTimeSeconds: 30, gracefulRestart: {enabled: true, restartTimeSeconds: 120}}`)},
	{"policy neighbours as IP and IP/32, services, one family", policy, "nodeSelector: {matchLabels: {bgp-policy: a}}\n" + policyNeighbor("{peerAddress: 10.0.0.1, peerASN: 65010, families: [{afi: ipv4, safi: unicast}], authSecretRef: bgp-auth, peerPort: 1179}\n- {peerAddress: 10.0.0.2/32, peerASN: 65010}")},
	{"pool of cidrs and ranges, both families", lbPool, `{blocks: [{cidr: 203.0.113.0/28}, {start: 203.0.113.20, stop: 203.0.113.30}, {cidr: "2001:db8:100::/120"}, {start: "2001:db8:200::1", stop: "2001:db8:200::1"}], serviceSelector: {matchLabels: {kbgp.io/service-namespace: shop}}, avoidBuggyIPs: true}`},
}

func TestValidObjectsAreAccepted(t *testing.T) {
	for _, tc := range validObjects {
		t.Run(tc.name, func(t *testing.T) {
			if err := create(t, newObject(t, tc.kind, tc.spec)); err != nil {
				t.Fatalf("the API server refused a valid %s: %v\n%s", tc.kind, err, tc.spec)
			}
		})
	}
}

// TestSamplesAreAccepted applies every file of config/samples, so the documented
// examples can never drift from the schema.
func TestSamplesAreAccepted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(server.RepoRoot, "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples found: %v", err)
	}
	kinds := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(data, &obj.Object); err != nil {
				t.Fatalf("parse: %v", err)
			}
			kinds[obj.GetKind()] = true
			if err := create(t, obj); err != nil {
				t.Fatalf("sample refused: %v", err)
			}
		})
	}
	for _, k := range []string{clusterConfig, peerConfig, advertisement, override, nodeConfig} {
		if !kinds[k] {
			t.Errorf("no sample of kind %s", k)
		}
	}
}

// TestDefaults checks the defaults the contract promises are filled in by the API
// server, so every reader sees the same values.
func TestDefaults(t *testing.T) {
	ctx := context.Background()
	pc := newObject(t, peerConfig, `{transport: {}, timers: {}, gracefulRestart: {enabled: true}}`)
	if err := create(t, pc); err != nil {
		t.Fatal(err)
	}
	var gotPC kbgpv1.BGPPeerConfig
	if err := server.Client.Get(ctx, client.ObjectKeyFromObject(pc), &gotPC); err != nil {
		t.Fatal(err)
	}
	wantPC := kbgpv1.BGPPeerConfigSpec{
		Transport:       &kbgpv1.BGPTransport{PeerPort: ptr(int32(179))},
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr(int32(120)), HoldTimeSeconds: ptr(int32(90)), KeepAliveTimeSeconds: ptr(int32(30))},
		GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr(int32(120))},
		EBGPMultihop:    ptr(int32(1)),
		Families: []kbgpv1.BGPFamily{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast},
		},
	}
	if diff := cmp.Diff(wantPC, gotPC.Spec); diff != "" {
		t.Errorf("BGPPeerConfig defaults (-want +got):\n%s", diff)
	}

	cc := newObject(t, clusterConfig, clusterInstance(""))
	if err := create(t, cc); err != nil {
		t.Fatal(err)
	}
	var gotCC kbgpv1.BGPClusterConfig
	if err := server.Client.Get(ctx, client.ObjectKeyFromObject(cc), &gotCC); err != nil {
		t.Fatal(err)
	}
	if got := gotCC.Spec.BGPInstances[0].RouterIDPool; got != "10.255.0.0/16" {
		t.Errorf("routerIDPool default = %q, want 10.255.0.0/16", got)
	}
}

func ptr[T any](v T) *T { return &v }
