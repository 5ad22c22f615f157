package convert

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// convertYAML converts input and returns the output stream and the warnings.
func convertYAML(t *testing.T, input string) (string, []Warning) {
	t.Helper()
	objs, warnings, err := Convert([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, objs); err != nil {
		t.Fatal(err)
	}
	return out.String(), warnings
}

// TestMappings checks conversions that are exact but not literal: values rewritten
// into kbgp's form, with no warning since nothing is lost. The only warnings allowed
// are those every input of a pool or pod CIDR announcement gets: when to apply the
// LoadBalancerIPPools, and where Cilium's pod CIDRs come from.
func TestMappings(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"communities in kbgp's form", ciliumAdvert("- advertisementType: PodCIDR\n  attributes:\n    communities:\n      standard: ['4259840100', '065001:07']\n      wellKnown: [no-export, llgr-stale, internet]"),
			[]string{"standard:\n        - 65000:100\n        - \"65001:7\"\n        - \"65535:6\"\n        - \"0:0\"\n", "wellKnown:\n        - no-export\n"}},
		{"Cilium's Service pseudo-labels", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [ClusterIP]}\n  selector: {matchLabels: {io.kubernetes.service.namespace: shop, io.kubernetes.service.name: web}}"),
			[]string{"kbgp.io/service-name: web\n", "kbgp.io/service-namespace: shop\n"}},
		{"MetalLB's service selectors, one entry each", metallbKind("BGPAdvertisement", "a", "serviceSelectors: [{matchLabels: {env: prod}}, {matchLabels: {env: stage}}]\nlocalPref: 50"),
			[]string{"localPreference: 50\n    selector:\n      matchLabels:\n        env: prod\n", "localPreference: 50\n    selector:\n      matchLabels:\n        env: stage\n"}},
		{"MetalLB ranges as prefixes", docs(metallbKind("IPAddressPool", "p", "addresses: [10.0.0.1-10.0.0.6, '2001:db8::/126']"), metallbKind("BGPAdvertisement", "a", "{}")),
			[]string{"loadBalancerIPPrefixes:\n      - 10.0.0.1/32\n      - 10.0.0.2/31\n      - 10.0.0.4/31\n      - 10.0.0.6/32\n      - 2001:db8::/126\n", "- start: 10.0.0.1\n    stop: 10.0.0.6\n"}},
		{"MetalLB community aliases", docs(metallbKind("Community", "c", "communities: [{name: big, value: 'large:1:2:3'}, {name: NO_ADVERTISE, value: '65535:65282'}]"),
			metallbKind("BGPAdvertisement", "a", "communities: [big, NO_ADVERTISE, '1:1', 'large:4:5:6']")),
			[]string{"large:\n        - \"1:2:3\"\n        - \"4:5:6\"\n", "standard:\n        - 65535:65282\n        - \"1:1\"\n"}},
		{"host-route aggregation lengths", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [ClusterIP], aggregationLengthIPv4: 32, aggregationLengthIPv6: 128}\n  selector: {}"),
			[]string{"service:\n      addresses:\n      - ClusterIP\n"}},
		{"MetalLB dual stack families", metallbPeer("p", "peerAddress: 2001:db8::1\ndualStackAddressFamily: true"),
			[]string{"families:\n  - afi: ipv4\n    safi: unicast\n  - afi: ipv6\n    safi: unicast\n"}},
		{"MetalLB unnumbered peer", metallbPeer("p", "interface: eth1"),
			[]string{"- interface: eth1\n      name: p\n      peerASN: 64513\n", "families:\n  - afi: ipv4\n    safi: unicast\n  - afi: ipv6\n    safi: unicast\n"}},
		{"MetalLB IPv6 session", metallbPeer("p", "peerAddress: 2001:db8::1\ndisableMP: true"), []string{"families:\n  - afi: ipv6\n    safi: unicast\n"}},
		{"MetalLB empty source address", metallbPeer("p", "peerAddress: 10.0.0.1\nsourceAddress: ''"), []string{"name: p\n      peerASN: 64513\n      peerAddress: 10.0.0.1\n"}},
		{"MetalLB BFD profile", docs(metallbKind("BFDProfile", "fast", "receiveInterval: 100\ntransmitInterval: 200\ndetectMultiplier: 5\nechoMode: false"), metallbPeer("p", "peerAddress: 10.0.0.1\nbfdProfile: fast")),
			[]string{"bfd:\n    detectMultiplier: 5\n    enabled: true\n    minRxMilliseconds: 100\n    minTxMilliseconds: 200\n"}},
		{"MetalLB v1beta1 peer", "apiVersion: metallb.io/v1beta1\nkind: BGPPeer\nmetadata: {name: old}\nspec: {myASN: 1, peerASN: 2, peerAddress: 10.0.0.1, holdTime: 3m, routerID: 10.9.9.9}\n",
			[]string{"holdTimeSeconds: 180\n", "routerID: 10.9.9.9\n", "name: old\n      peerASN: 2\n      peerAddress: 10.0.0.1\n"}},
		{"MetalLB namespaces", metallbKind("IPAddressPool", "p", "addresses: [10.0.0.0/24]\nserviceAllocation: {namespaces: [a, b]}"),
			[]string{"serviceSelector:\n    matchExpressions:\n    - key: kbgp.io/service-namespace\n      operator: In\n      values:\n      - a\n      - b\n"}},
		{"List of objects", "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(ciliumKind("CiliumBGPPeerConfig", "ebgpMultihop: 3"), "\n", "\n  ") + "\n",
			[]string{"kind: BGPPeerConfig\nmetadata:\n  name: x\nspec:\n  ebgpMultihop: 3\n"}},
		{"JSON", `{"apiVersion": "cilium.io/v2", "kind": "CiliumBGPPeerConfig", "metadata": {"name": "j"}, "spec": {"ebgpMultihop": 2, "transport": null}}`,
			[]string{"name: j\nspec:\n  ebgpMultihop: 2\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, warnings := convertYAML(t, tt.input)
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks\n%s\noutput:\n%s", want, out)
				}
			}
			for _, w := range warnings {
				if !strings.Contains(w.Message, "LoadBalancerIPPool") && !strings.HasSuffix(w.Message, podCIDRSource) {
					t.Errorf("unexpected warning %s", w)
				}
			}
		})
	}
}

func TestNotObjects(t *testing.T) {
	for _, in := range []string{"- a\n- b\n", "just words\n", "a: [\n", "apiVersion: v1\nkind: A\n---\n42\n"} {
		if _, _, err := Convert([]byte(in)); err == nil {
			t.Errorf("Convert(%q) accepted input that is not objects", in)
		}
	}
	objs, warnings, err := Convert([]byte("---\n# nothing\n---\n"))
	if err != nil || len(objs) != 0 || len(warnings) != 0 {
		t.Errorf("empty input: %v, %v, %v", objs, warnings, err)
	}
}

func TestRangePrefixes(t *testing.T) {
	tests := []struct{ first, last, want string }{
		{"10.0.0.0", "10.0.0.255", "10.0.0.0/24"},
		{"10.0.0.1", "10.0.0.1", "10.0.0.1/32"},
		{"192.168.9.1", "192.168.9.5", "192.168.9.1/32 192.168.9.2/31 192.168.9.4/31"},
		{"0.0.0.0", "255.255.255.255", "0.0.0.0/0"},
		{"255.255.255.254", "255.255.255.255", "255.255.255.254/31"},
		{"2001:db8::ffff", "2001:db8::1:0", "2001:db8::ffff/128 2001:db8::1:0/128"},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range rangePrefixes(netip.MustParseAddr(tt.first), netip.MustParseAddr(tt.last)) {
			got = append(got, p.String())
		}
		if diff := cmp.Diff(tt.want, strings.Join(got, " ")); diff != "" {
			t.Errorf("%s-%s: %s", tt.first, tt.last, diff)
		}
	}
}

func TestDisjoint(t *testing.T) {
	labels := func(k, v string) *kbgpv1.LabelSelector {
		return &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{k: kbgpv1.LabelValue(v)}}
	}
	req := func(rs ...kbgpv1.LabelSelectorRequirement) *kbgpv1.LabelSelector {
		return &kbgpv1.LabelSelector{MatchExpressions: rs}
	}
	r := func(k string, op kbgpv1.LabelSelectorOperator, vs ...kbgpv1.LabelValue) kbgpv1.LabelSelectorRequirement {
		return kbgpv1.LabelSelectorRequirement{Key: k, Operator: op, Values: vs}
	}
	tests := []struct {
		name string
		a, b *kbgpv1.LabelSelector
		want bool
	}{
		{"different values", labels("rack", "a"), labels("rack", "b"), true},
		{"same value", labels("rack", "a"), labels("rack", "a"), false},
		{"different keys", labels("rack", "a"), labels("row", "1"), false},
		{"hostname In, distinct", req(r(hostnameLabel, "In", "n1")), req(r(hostnameLabel, "In", "n2", "n3")), true},
		{"hostname In, shared", req(r(hostnameLabel, "In", "n1", "n2")), req(r(hostnameLabel, "In", "n2")), false},
		{"matchLabels against In", labels("rack", "a"), req(r("rack", "In", "b", "c")), true},
		{"NotIn covers", req(r("rack", "In", "a", "b")), req(r("rack", "NotIn", "a", "b", "c")), true},
		{"NotIn leaves one", req(r("rack", "In", "a", "b")), req(r("rack", "NotIn", "a")), false},
		{"Exists and DoesNotExist", req(r("bgp", "Exists")), req(r("bgp", "DoesNotExist")), true},
		{"In and DoesNotExist", req(r("bgp", "In", "on")), req(r("bgp", "DoesNotExist")), true},
		{"itself, consistent", req(r("rack", "In", "a"), r("row", "NotIn", "1")), nil, false},
		{"itself, In and NotIn", req(r("rack", "NotIn", "a"), r("rack", "In", "a")), nil, true},
		{"itself, two In", req(r("rack", "In", "a"), r("rack", "In", "b")), nil, true},
	}
	for _, tt := range tests {
		b := tt.b
		if b == nil {
			b = tt.a // the selector against itself: does it select any node?
		}
		if got := disjoint(tt.a, b); got != tt.want {
			t.Errorf("%s: disjoint = %v, want %v", tt.name, got, tt.want)
		}
		if got := disjoint(b, tt.a); got != tt.want {
			t.Errorf("%s, reversed: disjoint = %v, want %v", tt.name, got, tt.want)
		}
	}
}
