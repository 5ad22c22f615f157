package routerid

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

const (
	explicitSrc = kbgpv1.RouterIDSourceExplicit
	templateSrc = kbgpv1.RouterIDSourceTemplate
	nodeSrc     = kbgpv1.RouterIDSourceNodeIPv4
	hashSrc     = kbgpv1.RouterIDSourceHash
)

// dualStack is a node with IPv6 listed first, as dual-stack kubelets often do.
var dualStack = addrs(internalIP("fd00::5"), internalIP("10.0.0.5"), externalIP("2001:db8::5"), externalIP("203.0.113.5"))

type resolveCase struct {
	name    string
	in      Input
	want    Result
	wantErr string
	wantIs  error
}

// resolveFunctionalCases are the functional cases of docs/router-id.md (resolution order and methods), by name.
var resolveFunctionalCases = []resolveCase{
	{
		name: "explicit IPv4 (backward compatibility)",
		in:   Input{Config: Config{RouterID: "192.168.1.1"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("192.168.1.1"), Source: explicitSrc,
			Message: "Router ID resolved to 192.168.1.1 via explicit configuration from node worker-1"},
	},
	{
		name:    "explicit IPv6 (error)",
		in:      Input{Config: Config{RouterID: "2001:db8::1"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID 2001:db8::1 is not an IPv4 address: BGP router IDs are 32-bit",
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "explicit IPv4-mapped IPv6 (error)",
		in:      Input{Config: Config{RouterID: "::ffff:10.0.0.1"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID ::ffff:10.0.0.1 is not an IPv4 address: BGP router IDs are 32-bit",
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "${NODE_IP} on dual-stack node",
		in:   Input{Config: Config{RouterID: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("10.0.0.5"), Source: templateSrc,
			Message: "Router ID resolved to 10.0.0.5 via template from node worker-1"},
	},
	{
		name: "${NODE_IPV4} is ${NODE_IP}",
		in:   Input{Config: Config{RouterID: "${NODE_IPV4}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("10.0.0.5"), Source: templateSrc,
			Message: "Router ID resolved to 10.0.0.5 via template from node worker-1"},
	},
	{
		name: "${NODE_EXTERNAL_IP} resolution",
		in:   Input{Config: Config{RouterID: "${NODE_EXTERNAL_IP}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("203.0.113.5"), Source: templateSrc,
			Message: "Router ID resolved to 203.0.113.5 via template from node worker-1"},
	},
	{
		name: "${node.annotations['key']} resolution",
		in: Input{Config: Config{RouterID: "${node.annotations['bgp.kbgp.io/router-id']}"}, NodeName: "worker-1",
			NodeAddresses: dualStack, NodeAnnotations: map[string]string{"bgp.kbgp.io/router-id": "10.9.9.9"}},
		want: Result{RouterID: ip("10.9.9.9"), Source: templateSrc,
			Message: "Router ID resolved to 10.9.9.9 via template from node worker-1"},
	},
	{
		name: "auto-detect on IPv4 node",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP("10.0.0.5"), externalIP("203.0.113.5"))},
		want: Result{RouterID: ip("10.0.0.5"), Source: nodeSrc,
			Message: "Router ID resolved to 10.0.0.5 via auto-detect from node worker-1"},
	},
	{
		name: "auto-detect on dual-stack node skips IPv6",
		in:   Input{NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("10.0.0.5"), Source: nodeSrc,
			Message: "Router ID resolved to 10.0.0.5 via auto-detect from node worker-1"},
	},
	{
		name: "auto-detect on IPv6-only node (hash fallback)",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP("fd00::1"), externalIP("2001:db8::1"))},
		want: Result{RouterID: ip("10.255.166.39"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.166.39 via hash of the node name from node worker-1"},
	},
	{
		name: "auto-detect ignores ExternalIP IPv4 (hash fallback)",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP("fd00::1"), externalIP("203.0.113.5"))},
		want: Result{RouterID: ip("10.255.166.39"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.166.39 via hash of the node name from node worker-1"},
	},
	{
		name: "custom routerIDPool",
		in:   Input{Config: Config{RouterIDPool: "172.16.0.0/24"}, NodeName: "worker-1"},
		want: Result{RouterID: ip("172.16.0.205"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 172.16.0.205 via hash of the node name from node worker-1"},
	},
	{
		name:    "invalid routerIDPool CIDR (error)",
		in:      Input{Config: Config{RouterIDPool: "10.255.0.0"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerIDPool "10.255.0.0" is not a CIDR such as 10.255.0.0/16`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "invalid routerIDPool is an error even when an explicit routerID hides it",
		in:      Input{Config: Config{RouterID: "10.0.0.1", RouterIDPool: "10.0.0.0/25"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerIDPool "10.0.0.0/25" holds 128 addresses; it needs a prefix length of /24 or shorter (at least 256 addresses) so that nodes do not share a router ID`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "missing annotation (error)",
		in: Input{Config: Config{RouterID: "${node.annotations['custom-id']}"}, NodeName: "worker-1",
			NodeAddresses: dualStack, NodeAnnotations: map[string]string{"other": "10.0.0.9"}},
		wantErr: "Template resolution failed: annotation 'custom-id' not found",
		wantIs:  ErrTemplateResolution,
	},
	{
		name: "empty node addresses (hash fallback)",
		in:   Input{NodeName: "worker-1", NodeAddresses: nil},
		want: Result{RouterID: ip("10.255.166.39"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.166.39 via hash of the node name from node worker-1"},
	},
	{
		name: "only malformed addresses (hash fallback)",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP(""), internalIP("10.0.0"), internalIP("10.0.0.1 "), internalIP("010.0.0.1"))},
		want: Result{RouterID: ip("10.255.166.39"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.166.39 via hash of the node name from node worker-1"},
	},
	{
		name:    "loopback address rejected (explicit)",
		in:      Input{Config: Config{RouterID: "127.0.0.1"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID 127.0.0.1 is in the loopback range 127.0.0.0/8",
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "loopback address rejected (auto-detect takes the next usable one)",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP("127.0.0.1"), internalIP("10.0.0.5"))},
		want: Result{RouterID: ip("10.0.0.5"), Source: nodeSrc,
			Message: "Router ID resolved to 10.0.0.5 via auto-detect from node worker-1"},
	},
	{
		name: "loopback address rejected (annotation)",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": "127.0.0.2"}},
		wantErr: "Template resolution failed: annotation 'rid': router ID 127.0.0.2 is in the loopback range 127.0.0.0/8",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "link-local address rejected (explicit)",
		in:      Input{Config: Config{RouterID: "169.254.1.1"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID 169.254.1.1 is in the link-local range 169.254.0.0/16",
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "link-local address rejected (auto-detect falls back to hash)",
		in:   Input{NodeName: "worker-1", NodeAddresses: addrs(internalIP("169.254.1.1"), internalIP("fd00::1"))},
		want: Result{RouterID: ip("10.255.166.39"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.166.39 via hash of the node name from node worker-1"},
	},
	{
		name:    "link-local address rejected (${NODE_IP} fails, no fallback)",
		in:      Input{Config: Config{RouterID: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: addrs(internalIP("169.254.1.1"))},
		wantErr: "Template resolution failed: node worker-1 has no usable InternalIP IPv4 address",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "node name missing (error)",
		in:      Input{NodeAddresses: dualStack},
		wantErr: "invalid router ID configuration: node name is empty",
		wantIs:  ErrInvalidConfig,
	},
}

// resolveMoreCases cover the rest of the priority and validation rules.
var resolveMoreCases = []resolveCase{
	{
		name: "override beats the configured routerID",
		in:   Input{Config: Config{Override: "10.10.10.10", RouterID: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("10.10.10.10"), Source: explicitSrc,
			Message: "Router ID resolved to 10.10.10.10 via explicit configuration from node worker-1"},
	},
	{
		name: "override beats auto-detect",
		in:   Input{Config: Config{Override: "10.10.10.10"}, NodeName: "worker-1", NodeAddresses: dualStack},
		want: Result{RouterID: ip("10.10.10.10"), Source: explicitSrc,
			Message: "Router ID resolved to 10.10.10.10 via explicit configuration from node worker-1"},
	},
	{
		name:    "override must not be a template",
		in:      Input{Config: Config{Override: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		wantErr: `invalid router ID configuration: override routerID "${NODE_IP}" must be an IPv4 address, not a template`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "override must be usable",
		in:      Input{Config: Config{Override: "224.0.0.5"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: override: routerID: router ID 224.0.0.5 is in the multicast range 224.0.0.0/4",
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "a bad routerID is an error even when an override hides it",
		in:      Input{Config: Config{Override: "10.10.10.10", RouterID: "${HOSTNAME}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID "${HOSTNAME}" is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "unspecified rejected",
		in:      Input{Config: Config{RouterID: "0.0.0.0"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID 0.0.0.0 is in the unspecified range 0.0.0.0/32",
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "broadcast rejected",
		in:      Input{Config: Config{RouterID: "255.255.255.255"}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID: router ID 255.255.255.255 is in the broadcast range 255.255.255.255/32",
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "${NODE_IP} on an IPv6-only node is an error, not a hash fallback",
		in:      Input{Config: Config{RouterID: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: addrs(internalIP("fd00::1"))},
		wantErr: "Template resolution failed: node worker-1 has no usable InternalIP IPv4 address",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "${NODE_EXTERNAL_IP} without an ExternalIP IPv4",
		in:      Input{Config: Config{RouterID: "${NODE_EXTERNAL_IP}"}, NodeName: "worker-1", NodeAddresses: addrs(internalIP("10.0.0.5"))},
		wantErr: "Template resolution failed: node worker-1 has no usable ExternalIP IPv4 address",
		wantIs:  ErrTemplateResolution,
	},
	{
		name: "annotation holding IPv6",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": "fd00::9"}},
		wantErr: "Template resolution failed: annotation 'rid': router ID fd00::9 is not an IPv4 address: BGP router IDs are 32-bit",
		wantIs:  ErrTemplateResolution,
	},
	{
		name: "annotation holding a name",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": "router-1"}},
		wantErr: "Template resolution failed: annotation 'rid' value 'router-1' is not an IPv4 address",
		wantIs:  ErrTemplateResolution,
	},
	{
		name: "annotation is not trimmed",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": " 10.0.0.9"}},
		wantErr: "Template resolution failed: annotation 'rid' value ' 10.0.0.9' is not an IPv4 address",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "node name that is not a DNS subdomain",
		in:      Input{NodeName: "Worker_1"},
		wantErr: `invalid router ID configuration: node name "Worker_1" is not a DNS subdomain`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "empty pool means the default pool",
		in:   Input{Config: Config{RouterIDPool: ""}, NodeName: "v6-only-1"},
		want: Result{RouterID: ip("10.255.143.245"), Source: hashSrc, Fallback: true,
			Message: "Router ID resolved to 10.255.143.245 via hash of the node name from node v6-only-1"},
	},
}

func TestResolve(t *testing.T) {
	for _, group := range [][]resolveCase{resolveFunctionalCases, resolveMoreCases, resolveSecurityCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				got, err := Resolve(tc.in)
				if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
					t.Fatalf("error (-want +got):\n%s", diff)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("error %v does not wrap %v", err, tc.wantIs)
				}
				if diff := cmp.Diff(tc.want, got, cmpAddr); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestResolveFallbackMessage(t *testing.T) {
	// The event text is fixed by docs/router-id.md; users grep for it.
	if want := "No IPv4 address, using hash-based router ID from pool"; FallbackMessage != want {
		t.Errorf("FallbackMessage = %q, want %q", FallbackMessage, want)
	}
}
