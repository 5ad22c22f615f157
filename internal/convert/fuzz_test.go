package convert

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzConvert checks that no input makes the converter panic, and that whatever it
// converts it can write. The seeds are the published examples and inputs that reach
// the warning paths; go test -fuzz=FuzzConvert ./internal/convert explores from them.
func FuzzConvert(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "in", "*.yaml"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		policyNeighbor("advertisedPathAttributes: [{selectorType: PodCIDR}]\nfamilies: [{afi: l2vpn, safi: evpn}, 5]"),
		ciliumInstancePeers("- {name: A.b, peerASN: 1, peerAddress: 10.0.0.1, peerConfigRef: {kind: X}}\n- 7"),
		docs(metallbPeer("a", "peerAddress: 10.0.0.1\nnodeSelectors: [{matchLabels: {rack: a}}, 3]"), metallbPeer("b", "peerAddress: 10.0.0.2")),
		docs(metallbKind("IPAddressPool", "p", "addresses: [10.0.0.9-10.0.0.1, '::-ffff::', 1]"), metallbKind("BGPAdvertisement", "a", "ipAddressPoolSelectors: [{matchExpressions: [{key: a, operator: In}]}]")),
		"apiVersion: v1\nkind: List\nitems: [{kind: List, items: [3]}]\n",
		ciliumPolicy("- localASN: 1\n  exportPodCIDR: true\n  neighbors: [{peerAddress: 10.0.0.1/24, peerASN: 1}, {peerAddress: '::1/0', peerASN: 1}, {peerAddress: 10.0.0.1, peerASN: 1, kepAliveTimeSeconds: 3}]"),
		docs("apiVersion: cilium.io/v2\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: p}\nspec: {allowFirstLastIPs: 'No', blocks: [{cidr: '::/127'}, {cidr: 0.0.0.0/0}, {start: '::ffff:10.0.0.1'}, {start: 1, stop: 2}, 5], cidrs: [{cidr: 10.0.0.0/31}]}\n",
			ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP, LoadBalancerIP]}\n  selector: {}")),
		docs(metallbPeer("a", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.0.2\nnodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1, n2]}]}]"),
			metallbPeer("b", "peerAddress: 10.0.0.1\nkeepaliveTime: 30000s\nnodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: []}]}]"),
			metallbKind("BGPAdvertisement", "x", "peers: []\nLocalPref: 1")),
		"{\"apiVersion\": \"cilium.io/v2\", \"kind\": \"CiliumBGPNodeConfigOverride\", \"spec\": {\"bgpInstances\": [{\"name\": 1}]}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, _, err := Convert(data)
		if err != nil {
			return
		}
		if err := Write(io.Discard, objs); err != nil {
			t.Errorf("converted objects cannot be written: %v", err)
		}
	})
}
