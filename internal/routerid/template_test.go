package routerid

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRouterID(t *testing.T) {
	const unsupported = ` is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`
	name63 := strings.Repeat("n", 63)
	tests := []struct {
		in      string
		want    routerIDSpec
		wantErr string
	}{
		{in: "10.0.0.1", want: routerIDSpec{literal: ip("10.0.0.1")}},
		{in: "${NODE_IP}", want: routerIDSpec{kind: nodeInternalIPv4}},
		{in: "${NODE_IPV4}", want: routerIDSpec{kind: nodeInternalIPv4}},
		{in: "${NODE_EXTERNAL_IP}", want: routerIDSpec{kind: nodeExternalIPv4}},
		{in: "${node.annotations['custom-id']}", want: routerIDSpec{kind: nodeAnnotation, key: "custom-id"}},
		{in: "${node.annotations['bgp.kbgp.io/router_id.v4']}", want: routerIDSpec{kind: nodeAnnotation, key: "bgp.kbgp.io/router_id.v4"}},
		{in: annotationTemplate("p/" + name63), want: routerIDSpec{kind: nodeAnnotation, key: "p/" + name63}},

		{in: "${node_ip}", wantErr: `routerID "${node_ip}"` + unsupported},
		{in: " ${NODE_IP}", wantErr: `routerID " ${NODE_IP}"` + unsupported},
		{in: "${NODE_IP} ", wantErr: `routerID "${NODE_IP} "` + unsupported},
		{in: "${NODE_IP}${NODE_IP}", wantErr: `routerID "${NODE_IP}${NODE_IP}"` + unsupported},
		{in: "${env.HOME}", wantErr: `routerID "${env.HOME}"` + unsupported},
		{in: "${node.labels['rid']}", wantErr: `routerID "${node.labels['rid']}"` + unsupported},
		{in: `${node.annotations["rid"]}`, wantErr: `routerID "${node.annotations[\"rid\"]}"` + unsupported},
		{in: "010.0.0.1", wantErr: `routerID "010.0.0.1"` + unsupported},
		{in: "10.0.0.1/32", wantErr: `routerID "10.0.0.1/32"` + unsupported},
		{in: "fe80::1%eth0", wantErr: "routerID: router ID fe80::1 is not an IPv4 address: BGP router IDs are 32-bit"},
		// Found by FuzzParseRouterID: netip accepts NUL and newlines in a zone.
		{in: "::%\x00", wantErr: "routerID: router ID :: is not an IPv4 address: BGP router IDs are 32-bit"},
		{in: "${node.annotations['']}", wantErr: "routerID template: annotation key is empty"},
		{in: "${node.annotations['-rid']}", wantErr: `routerID template: annotation key "-rid" is not a Kubernetes annotation key: [DNS-subdomain prefix/]name of letters, digits, '-', '_' and '.'`},
		{in: "${node.annotations['Upper.Case/rid']}", wantErr: `routerID template: annotation key "Upper.Case/rid" is not a Kubernetes annotation key: [DNS-subdomain prefix/]name of letters, digits, '-', '_' and '.'`},
		{in: "${node.annotations['a/b/c']}", wantErr: `routerID template: annotation key "a/b/c" is not a Kubernetes annotation key: [DNS-subdomain prefix/]name of letters, digits, '-', '_' and '.'`},
		{in: "${node.annotations['a\"b']}", wantErr: `routerID template: annotation key "a\"b" contains a quote`},
		{in: "${node.annotations['a`b']}", wantErr: "routerID template: annotation key \"a`b\" contains a quote"},
		{in: "${node.annotations['a\rb']}", wantErr: `routerID template: annotation key "a\rb" contains a control character`},
		{in: "${node.annotations['a\x7fb']}", wantErr: `routerID template: annotation key "a\x7fb" contains a control character`},
		{in: annotationTemplate("p/" + name63 + "n"), wantErr: `routerID template: annotation key "p/` + name63 + `n" has a name part of 64 characters, more than 63`},
		// A 254-byte key (over Kubernetes' 253) cannot get past the routerID length
		// bound, which runs first.
		{in: annotationTemplate(strings.Repeat("k", 254)), wantErr: "routerID is 277 bytes, longer than the 256 allowed"},
		{in: strings.Repeat("1", MaxRouterIDLength+1), wantErr: "routerID is 257 bytes, longer than the 256 allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseRouterID(tc.in)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, cmpAddr, cmp.AllowUnexported(routerIDSpec{})); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}
