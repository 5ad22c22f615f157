package routerid

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hashVectors were computed outside Go (an independent FNV-1a in Python) from the
// formula of docs/router-id.md. They pin the result across architectures and
// implementations: run them under qemu on arm64 and s390x (big-endian).
var hashVectors = []struct {
	node, pool, want string
}{
	{"worker-1", "10.255.0.0/16", "10.255.166.39"}, // the brief's check value
	{"worker-2", "10.255.0.0/16", "10.255.158.110"},
	{"v6-only-1", "10.255.0.0/16", "10.255.143.245"},
	{"node-a", "10.255.0.0/16", "10.255.186.87"},
	{"ip-10-0-0-1.ec2.internal", "10.255.0.0/16", "10.255.160.28"},
	{"worker-1", "172.16.0.0/24", "172.16.0.205"},
	{"worker-1", "192.168.7.0/24", "192.168.7.205"},
	{"worker-1", "100.64.0.0/10", "100.121.51.253"},
	{"a", "10.0.0.0/8", "10.12.42.17"},
	{"w", "32.0.0.0/3", "50.12.63.62"},
}

func TestHashVectors(t *testing.T) {
	for _, v := range hashVectors {
		t.Run(v.node+"@"+v.pool, func(t *testing.T) {
			pool, err := ParsePool(v.pool)
			if err != nil {
				t.Fatal(err)
			}
			if got := pool.Hash(v.node).String(); got != v.want {
				t.Errorf("Hash(%q) into %s = %s, want %s", v.node, v.pool, got, v.want)
			}
		})
	}
}

// TestHashMatchesReferenceFormula recomputes the document's formula with a hand-written
// FNV-1a (offset basis 2166136261, prime 16777619) and byte arithmetic on the address,
// so that neither hash/fnv nor encoding/binary is trusted blindly.
func TestHashMatchesReferenceFormula(t *testing.T) {
	pool, err := ParsePool("10.240.0.0/12")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		name := fmt.Sprintf("node-%d.zone-%d.example", i, i%7)
		h := uint32(2166136261)
		for j := 0; j < len(name); j++ {
			h ^= uint32(name[j])
			h *= 16777619
		}
		offset := h%(1<<20-1) + 1
		want := fmt.Sprintf("10.%d.%d.%d", 240+offset>>16, offset>>8&0xff, offset&0xff)
		if got := pool.Hash(name).String(); got != want {
			t.Fatalf("Hash(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestHashIsDeterministic(t *testing.T) {
	in := Input{NodeName: "v6-only-1", NodeAddresses: addrs(internalIP("fd00::1"))}
	first, err := Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		again, err := Resolve(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again, cmpAddr); diff != "" {
			t.Fatalf("second resolution differs (-first +again):\n%s", diff)
		}
	}
	other, err := Resolve(Input{NodeName: "v6-only-2"})
	if err != nil {
		t.Fatal(err)
	}
	if other.RouterID == first.RouterID {
		t.Errorf("v6-only-1 and v6-only-2 both hash to %s", first.RouterID)
	}
}

// TestHashStaysInsidePool checks the edges of the offset: never the network address,
// never past the last address, for the smallest pool allowed.
func TestHashStaysInsidePool(t *testing.T) {
	pool, err := ParsePool("192.0.2.0/24")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range 20000 {
		got := pool.Hash(fmt.Sprintf("n%d", i))
		if !pool.Prefix().Contains(got) || got == pool.Prefix().Addr() {
			t.Fatalf("Hash(n%d) = %s: outside %s or the network address", i, got, pool)
		}
		seen[got.String()] = true
	}
	// 20000 names over 255 offsets reach every one, including the last address.
	if len(seen) != 255 || !seen["192.0.2.255"] || !seen["192.0.2.1"] {
		t.Errorf("hash reached %d addresses (want all 255, 192.0.2.1 through 192.0.2.255)", len(seen))
	}
}

func TestParsePool(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "", want: "10.255.0.0/16"},
		{in: "10.255.0.0/16", want: "10.255.0.0/16"},
		{in: "172.16.0.0/24", want: "172.16.0.0/24"},
		{in: "10.0.0.0/8", want: "10.0.0.0/8"},
		{in: "10.0.0.0/25", wantErr: `routerIDPool "10.0.0.0/25" holds 128 addresses; it needs a prefix length of /24 or shorter (at least 256 addresses) so that nodes do not share a router ID`},
		{in: "192.0.2.1/32", wantErr: `routerIDPool "192.0.2.1/32" holds 1 addresses; it needs a prefix length of /24 or shorter (at least 256 addresses) so that nodes do not share a router ID`},
		{in: "10.255.0.1/16", wantErr: `routerIDPool "10.255.0.1/16" has host bits set; use the network address 10.255.0.0/16`},
		{in: "fd00::/64", wantErr: `routerIDPool "fd00::/64" is not IPv4: router IDs are IPv4 addresses`},
		{in: "::ffff:0:0/96", wantErr: `routerIDPool "::ffff:0:0/96" is not IPv4: router IDs are IPv4 addresses`},
		{in: "10.255.0.0", wantErr: `routerIDPool "10.255.0.0" is not a CIDR such as 10.255.0.0/16`},
		{in: "10.255.0.0/16\n", wantErr: `routerIDPool "10.255.0.0/16\n" is not a CIDR such as 10.255.0.0/16`},
		{in: "010.255.0.0/16", wantErr: `routerIDPool "010.255.0.0/16" is not a CIDR such as 10.255.0.0/16`},
		{in: "0.0.0.0/0", wantErr: `routerIDPool "0.0.0.0/0" overlaps the unspecified range 0.0.0.0/32, which cannot hold router IDs`},
		{in: "127.0.0.0/16", wantErr: `routerIDPool "127.0.0.0/16" overlaps the loopback range 127.0.0.0/8, which cannot hold router IDs`},
		{in: "169.254.0.0/16", wantErr: `routerIDPool "169.254.0.0/16" overlaps the link-local range 169.254.0.0/16, which cannot hold router IDs`},
		{in: "128.0.0.0/2", wantErr: `routerIDPool "128.0.0.0/2" overlaps the link-local range 169.254.0.0/16, which cannot hold router IDs`},
		{in: "239.0.0.0/8", wantErr: `routerIDPool "239.0.0.0/8" overlaps the multicast range 224.0.0.0/4, which cannot hold router IDs`},
		{in: "255.255.255.0/24", wantErr: `routerIDPool "255.255.255.0/24" overlaps the broadcast range 255.255.255.255/32, which cannot hold router IDs`},
		{in: "10.255.0.0/16 plus1", wantErr: "routerIDPool is 19 bytes; an IPv4 CIDR has at most 18"},
		{in: kib10, wantErr: "routerIDPool is 10240 bytes; an IPv4 CIDR has at most 18"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParsePool(tc.in)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err == nil && got.String() != tc.want {
				t.Errorf("ParsePool(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestZeroPoolIsDefault(t *testing.T) {
	if got := (Pool{}).Hash("worker-1").String(); got != "10.255.166.39" {
		t.Errorf("zero Pool hashes worker-1 to %s, want the default pool's 10.255.166.39", got)
	}
}

func TestPoolUsage(t *testing.T) {
	small, err := ParsePool("192.0.2.0/24")
	if err != nil {
		t.Fatal(err)
	}
	// n2 and n20 both hash to 192.0.2.215 in this pool (found by search, pinned here).
	tests := []struct {
		name           string
		pool           Pool
		nodes          []string
		want           Usage
		wantCollisions int
		wantWarn       bool
	}{
		{name: "none", pool: small, want: Usage{Capacity: 255}},
		{name: "duplicate names count once", pool: small, nodes: []string{"worker-1", "worker-1"},
			want: Usage{Nodes: 1, Used: 1, Capacity: 255}},
		{name: "a collision", pool: small, nodes: []string{"n2", "n20", "worker-1"},
			want: Usage{Nodes: 3, Used: 2, Capacity: 255}, wantCollisions: 1},
		{name: "default pool", nodes: []string{"worker-1", "worker-2"},
			want: Usage{Nodes: 2, Used: 2, Capacity: 65535}},
		// Sequential names are not random: 300 worker-N names collide 10 times in the
		// default pool, where random names would collide about 0.7 times on average.
		{name: "300 sequential names in the default pool", nodes: names(300),
			want: Usage{Nodes: 300, Used: 290, Capacity: 65535}, wantCollisions: 10},
		{name: "over half of a /24", pool: small, nodes: names(300),
			want: Usage{Nodes: 300, Used: 172, Capacity: 255}, wantCollisions: 128, wantWarn: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.pool.Usage(tc.nodes)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
			if got.Collisions() != tc.wantCollisions {
				t.Errorf("Collisions() = %d, want %d", got.Collisions(), tc.wantCollisions)
			}
			if warn := got.Fraction() > UsageWarnFraction; warn != tc.wantWarn {
				t.Errorf("Fraction() = %.3f: warn %v, want %v", got.Fraction(), warn, tc.wantWarn)
			}
		})
	}
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("worker-%d", i)
	}
	return out
}
