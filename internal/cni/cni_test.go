package cni

import (
	"bytes"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/google/go-cmp/cmp"
)

const testMAC = "02:42:0a:f4:01:81"

// ipc is an IP config of the pod interface (index 2) of a bridge plugin result.
func ipc(t *testing.T, cidr, gw string) *types100.IPConfig {
	t.Helper()
	ip, n, err := net.ParseCIDR(cidr)
	if err != nil {
		t.Fatal(err)
	}
	c := &types100.IPConfig{Interface: types100.Int(2), Address: net.IPNet{IP: ip, Mask: n.Mask}}
	if gw != "" {
		c.Gateway = net.ParseIP(gw)
		if c.Gateway == nil {
			t.Fatalf("bad gateway %q", gw)
		}
	}
	return c
}

// bridgeResult is what the bridge plugin returns: the bridge, the host-side veth, the pod
// interface (in its sandbox), and the IP configs.
func bridgeResult(ips ...*types100.IPConfig) *types100.Result {
	return &types100.Result{
		CNIVersion: "1.0.0",
		Interfaces: []*types100.Interface{
			{Name: "cbr0", Mac: strings.ToUpper(testMAC)},
			{Name: "veth1a2b3c4d", Mac: "7a:aa:bb:cc:dd:01"},
			{Name: "eth0", Mac: "0a:58:0a:f4:01:82", Sandbox: "/run/netns/pod"},
		},
		IPs: ips,
		Routes: []*types.Route{
			{Dst: net.IPNet{IP: net.IPv4zero, Mask: net.CIDRMask(0, 32)}},
			{Dst: net.IPNet{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)}},
		},
	}
}

func gw(addr, subnet string) Gateway {
	return Gateway{Gateway: netip.MustParseAddr(addr), Subnet: netip.MustParsePrefix(subnet), Bridge: "cbr0", BridgeMAC: testMAC}
}

func TestGateways(t *testing.T) {
	for _, tc := range []struct {
		name      string
		res       *types100.Result
		want      []Gateway
		wantNotes []string // substrings, one per note
		wantErr   string
	}{
		{
			name: "IPv4 gateway that is not the subnet's first address",
			res:  bridgeResult(ipc(t, "10.244.1.130/24", "10.244.1.129")),
			want: []Gateway{gw("10.244.1.129", "10.244.1.0/24")},
		},
		{
			name: "IPv6 gateway that is not the subnet's first address",
			res:  bridgeResult(ipc(t, "2001:db8:9::8001/64", "2001:db8:9::8000")),
			want: []Gateway{gw("2001:db8:9::8000", "2001:db8:9::/64")},
		},
		{
			name: "dual stack: one gateway per family",
			res:  bridgeResult(ipc(t, "10.244.9.5/24", "10.244.9.1"), ipc(t, "2001:db8:9::5/64", "2001:db8:9::1")),
			want: []Gateway{gw("10.244.9.1", "10.244.9.0/24"), gw("2001:db8:9::1", "2001:db8:9::/64")},
		},
		{
			name:      "IPv4 without a gateway: only the IPv6 one",
			res:       bridgeResult(ipc(t, "10.244.9.5/24", ""), ipc(t, "2001:db8:9::5/64", "2001:db8:9::1")),
			want:      []Gateway{gw("2001:db8:9::1", "2001:db8:9::/64")},
			wantNotes: []string{"IPv4, 10.244.9.0/24) has no gateway"},
		},
		{
			name:      "IPv6 without a gateway: only the IPv4 one",
			res:       bridgeResult(ipc(t, "10.244.9.5/24", "10.244.9.1"), ipc(t, "2001:db8:9::5/64", "")),
			want:      []Gateway{gw("10.244.9.1", "10.244.9.0/24")},
			wantNotes: []string{"IPv6, 2001:db8:9::/64) has no gateway"},
		},
		{
			name: "IPv4 address and gateway in 16-byte form, mask in 16-byte form",
			res: bridgeResult(&types100.IPConfig{
				Address: net.IPNet{IP: net.ParseIP("10.244.1.130"), Mask: net.CIDRMask(120, 128)},
				Gateway: net.ParseIP("10.244.1.129").To16(),
			}),
			want: []Gateway{gw("10.244.1.129", "10.244.1.0/24")},
		},
		{
			name: "the same gateway twice: one record",
			res:  bridgeResult(ipc(t, "10.244.9.5/24", "10.244.9.1"), ipc(t, "10.244.9.6/24", "10.244.9.1")),
			want: []Gateway{gw("10.244.9.1", "10.244.9.0/24")},
		},
		{
			name:      "a gateway outside the subnet is kept, with a note",
			res:       bridgeResult(ipc(t, "10.244.9.5/25", "10.244.9.129")),
			want:      []Gateway{gw("10.244.9.129", "10.244.9.0/25")},
			wantNotes: []string{"outside the pod subnet"},
		},
		{
			name:    "a gateway of the other family",
			res:     bridgeResult(ipc(t, "10.244.9.5/24", "2001:db8:9::1")),
			wantErr: "not of the address's family",
		},
		{
			name: "no host-side interface",
			res: &types100.Result{
				Interfaces: []*types100.Interface{{Name: "eth0", Sandbox: "/run/netns/pod"}},
				IPs:        []*types100.IPConfig{ipc(t, "10.244.9.5/24", "10.244.9.1")},
			},
			wantErr: "no host-side interface",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br, got, notes, err := Gateways(tc.res)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if br.Name != "cbr0" {
				t.Errorf("bridge %q, want cbr0 (the first interface without a sandbox)", br.Name)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("gateways (-want +got):\n%s", diff)
			}
			if len(notes) != len(tc.wantNotes) {
				t.Fatalf("notes %q, want %d containing %q", notes, len(tc.wantNotes), tc.wantNotes)
			}
			for i, n := range notes {
				if !strings.Contains(n, tc.wantNotes[i]) {
					t.Errorf("note %q does not contain %q", n, tc.wantNotes[i])
				}
			}
		})
	}
}

func ruleStrings(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		pos := "-A"
		if r.Position == Insert {
			pos = "-I"
		}
		out[i] = pos + " " + r.String()
	}
	return out
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *types100.Result
		want []string
	}{
		{
			name: "IPv4 gateway 10.244.1.129 (not the first address)",
			res:  bridgeResult(ipc(t, "10.244.1.130/24", "10.244.1.129")),
			want: []string{
				"-I KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.1.129 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.1.0/24 -j DROP",
				"-A OUTPUT -j KBGP-DEDUP",
			},
		},
		{
			name: "IPv6 gateway 2001:db8:9::8000 (not the first address)",
			res:  bridgeResult(ipc(t, "2001:db8:9::8001/64", "2001:db8:9::8000")),
			want: []string{
				"-I KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::8000 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::/64 -j DROP",
				"-A OUTPUT -j KBGP-DEDUP",
			},
		},
		{
			name: "dual stack: rules per family",
			res:  bridgeResult(ipc(t, "10.244.9.5/24", "10.244.9.1"), ipc(t, "2001:db8:9::5/64", "2001:db8:9::1")),
			want: []string{
				"-I KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.9.1 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.9.0/24 -j DROP",
				"-I KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::1 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::/64 -j DROP",
				"-A OUTPUT -j KBGP-DEDUP",
			},
		},
		{
			name: "no IPv4 gateway: no IPv4 rule",
			res:  bridgeResult(ipc(t, "10.244.9.5/24", ""), ipc(t, "2001:db8:9::5/64", "2001:db8:9::1")),
			want: []string{
				"-I KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::1 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::/64 -j DROP",
				"-A OUTPUT -j KBGP-DEDUP",
			},
		},
		{
			name: "no gateway at all: only the jump",
			res:  bridgeResult(ipc(t, "10.244.9.5/24", ""), ipc(t, "2001:db8:9::5/64", "")),
			want: []string{"-A OUTPUT -j KBGP-DEDUP"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, gws, _, err := Gateways(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			rules, err := Rules(gws)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ruleStrings(rules)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGatewayRulesRejectBadRecords(t *testing.T) {
	for name, g := range map[string]Gateway{
		"bad MAC":   {Gateway: netip.MustParseAddr("10.244.9.1"), Subnet: netip.MustParsePrefix("10.244.9.0/24"), BridgeMAC: "nope"},
		"no subnet": {Gateway: netip.MustParseAddr("10.244.9.1"), BridgeMAC: testMAC},
	} {
		if _, err := GatewayRules(g); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStaleRules(t *testing.T) {
	old := gw("10.244.9.1", "10.244.9.0/24")
	moved := old
	moved.BridgeMAC = "02:42:0a:f4:01:01"
	sameSubnetOtherGW := gw("10.244.9.2", "10.244.9.0/24") // shares old's DROP rule
	for _, tc := range []struct {
		name    string
		current []Gateway
		want    []string
	}{
		{name: "unchanged record: nothing stale", current: []Gateway{old}},
		{
			name:    "MAC changed: both old rules stale",
			current: []Gateway{moved},
			want: []string{
				"-I KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.9.1 -j ACCEPT",
				"-A KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.9.0/24 -j DROP",
			},
		},
		{
			name:    "a rule another record still yields is kept",
			current: []Gateway{moved, sameSubnetOtherGW},
			want:    []string{"-I KBGP-DEDUP -p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.9.1 -j ACCEPT"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ruleStrings(staleRules(old, tc.current)), cmpEmpty); diff != "" {
				t.Errorf("stale rules (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestRecordsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadGateways(dir); err != nil || len(got) != 0 {
		t.Fatalf("empty state dir: %v, %v", got, err)
	}
	want := []Gateway{gw("10.244.1.129", "10.244.1.0/24"), gw("2001:db8:9::8000", "2001:db8:9::/64")}
	for i := len(want) - 1; i >= 0; i-- {
		if err := writeGateway(dir, want[i]); err != nil {
			t.Fatal(err)
		}
	}
	// A rewrite replaces the record.
	if err := writeGateway(dir, want[0]); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGateways(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for _, name := range []string{"10.244.1.129.json", "2001_db8_9__8000.json"} {
		b, err := readFile(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"bridge":"cbr0","bridgeMAC":"`+testMAC+`"`)) || !bytes.Contains(b, []byte(`"gateway":"`)) || !bytes.Contains(b, []byte(`"subnet":"`)) {
			t.Errorf("%s: %s", name, b)
		}
	}
}
