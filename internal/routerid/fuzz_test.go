package routerid

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// securitySeeds are routerID strings from the security cases of security_test.go and the
// shapes around them, seeding every fuzz target that takes a routerID.
var securitySeeds = []string{
	"", "10.0.0.1", "2001:db8::1", "127.0.0.1", "169.254.1.1", "255.255.255.255",
	"${NODE_IP}", "${NODE_IPV4}", "${NODE_EXTERNAL_IP}", "${node.annotations['custom-id']}",
	"${NODE_IP}; rm -rf /", "$(hostname -i)", "{{ .Status.Addresses }}",
	"${node.annotations['../../etc/passwd']}", "${node.annotations['key\x00hidden']}",
	"${node.annotations['key\nhidden']}", "${node.annotations['ключ']}", "${node.annotations['a']}']}",
	"${node.annotations['${NODE_IP}']}", annotationTemplate(strings.Repeat("k", 240)),
}

func FuzzParseRouterID(f *testing.F) {
	for _, s := range securitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := parseRouterID(s)
		if err != nil {
			checkMessage(t, err.Error())
			return
		}
		if len(s) > MaxRouterIDLength {
			t.Fatalf("accepted %d bytes", len(s))
		}
		switch spec.kind {
		case noTemplate:
			if err := Validate(spec.literal); err != nil {
				t.Fatalf("accepted literal %q: %v", s, err)
			}
		case nodeAnnotation:
			// The key is exactly what sits in the frame, and it is a Kubernetes key
			// without anything a path, shell or log line could misread.
			if annotationTemplate(spec.key) != s || !annotationKeyPattern.MatchString(spec.key) ||
				strings.Contains(spec.key, "..") || strings.ContainsAny(spec.key, "'\"`\x00\n\r") {
				t.Fatalf("accepted annotation key %q from %q", spec.key, s)
			}
		default:
			if s != "${NODE_IP}" && s != "${NODE_IPV4}" && s != "${NODE_EXTERNAL_IP}" {
				t.Fatalf("accepted %q as a fixed template", s)
			}
		}
	})
}

func FuzzParsePool(f *testing.F) {
	for _, s := range []string{"", "10.255.0.0/16", "172.16.0.0/24", "192.0.2.1/32", "192.0.2.0/31", "10.0.0.0/25",
		"0.0.0.0/0", "127.0.0.0/8", "fd00::/64", "::ffff:0:0/96", "10.255.0.1/16", "10.255.0.0/16\n", "32.0.0.0/3"} {
		f.Add(s, "worker-1")
	}
	f.Fuzz(func(t *testing.T, s, node string) {
		pool, err := ParsePool(s)
		if err != nil {
			checkMessage(t, err.Error())
			return
		}
		p := pool.Prefix()
		if !p.Addr().Is4() || p.Bits() > maxPoolPrefixLen || p.Masked() != p {
			t.Fatalf("accepted pool %q as %s", s, p)
		}
		checkHash(t, pool, node)
	})
}

// FuzzResolve drives the whole resolution with arbitrary configuration and node data.
// Seeds: every table case of TestResolve, including the security ones.
func FuzzResolve(f *testing.F) {
	for _, group := range [][]resolveCase{resolveFunctionalCases, resolveMoreCases, resolveSecurityCases} {
		for _, tc := range group {
			a := slices.Concat(tc.in.NodeAddresses, make([]corev1.NodeAddress, 2))
			key, value := "rid", ""
			if k, ok := cutFrame(tc.in.RouterID); ok {
				key, value = k, tc.in.NodeAnnotations[k]
			}
			f.Add(tc.in.Override, tc.in.RouterID, tc.in.RouterIDPool, tc.in.NodeName,
				string(a[0].Type), a[0].Address, string(a[1].Type), a[1].Address, key, value)
		}
	}
	f.Fuzz(func(t *testing.T, override, routerID, pool, node, type1, addr1, type2, addr2, key, value string) {
		in := Input{
			Config:   Config{Override: override, RouterID: routerID, RouterIDPool: pool},
			NodeName: node,
			NodeAddresses: addrs(corev1.NodeAddress{Type: corev1.NodeAddressType(type1), Address: addr1},
				corev1.NodeAddress{Type: corev1.NodeAddressType(type2), Address: addr2}),
			NodeAnnotations: map[string]string{key: value},
		}
		res, err := Resolve(in)
		again, errAgain := Resolve(in)
		if errText(err) != errText(errAgain) || !cmp.Equal(res, again, cmpAddr) {
			t.Fatalf("not deterministic: %v / %v", err, errAgain)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) && !errors.Is(err, ErrTemplateResolution) {
				t.Fatalf("error of no known kind: %v", err)
			}
			checkMessage(t, err.Error())
			return
		}
		checkResult(t, in, res)
	})
}

func checkResult(t *testing.T, in Input, res Result) {
	t.Helper()
	if err := Validate(res.RouterID); err != nil {
		t.Fatalf("resolved %s (%s): %v", res.RouterID, res.Source, err)
	}
	checkMessage(t, res.Message)
	if res.Fallback != (res.Source == kbgpv1.RouterIDSourceHash) {
		t.Fatalf("Fallback %v with source %s", res.Fallback, res.Source)
	}
	switch res.Source {
	case kbgpv1.RouterIDSourceExplicit, kbgpv1.RouterIDSourceTemplate, kbgpv1.RouterIDSourceNodeIPv4:
	case kbgpv1.RouterIDSourceHash:
		pool, err := ParsePool(in.RouterIDPool)
		if err != nil {
			t.Fatalf("hashed into pool %q that ParsePool rejects: %v", in.RouterIDPool, err)
		}
		if in.Override != "" || in.RouterID != "" {
			t.Fatalf("hashed although override %q or routerID %q is set", in.Override, in.RouterID)
		}
		if got := pool.Hash(in.NodeName); got != res.RouterID {
			t.Fatalf("hash result %s, Pool.Hash gives %s", res.RouterID, got)
		}
		checkHash(t, pool, in.NodeName)
	default:
		t.Fatalf("unknown source %q", res.Source)
	}
	if in.Override != "" && (res.Source != kbgpv1.RouterIDSourceExplicit || res.RouterID.String() != in.Override) {
		t.Fatalf("override %q lost to %s (%s)", in.Override, res.RouterID, res.Source)
	}
}

// checkHash asserts the hash invariants: inside the pool, never the network address,
// always a valid router ID.
func checkHash(t *testing.T, pool Pool, node string) {
	t.Helper()
	got := pool.Hash(node)
	if !pool.Prefix().Contains(got) || got == pool.Prefix().Addr() {
		t.Fatalf("Hash(%q) = %s: outside %s or its network address", node, got, pool)
	}
	if err := Validate(got); err != nil {
		t.Fatalf("Hash(%q) into %s: %v", node, pool, err)
	}
}

// checkMessage asserts that a message is safe for one log line and an event: no
// character that could start a forged entry.
func checkMessage(t *testing.T, msg string) {
	t.Helper()
	if strings.ContainsAny(msg, "\n\r\x00") {
		t.Fatalf("message with a line break or NUL: %q", msg)
	}
}
