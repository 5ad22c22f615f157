package checkpoint

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
)

var (
	keyDefault = bgp.InstanceKey{LocalASN: 65001}
	keyRed     = bgp.InstanceKey{LocalASN: 65001, VRF: "red"}
)

func peer(name, addr string) bgp.DesiredPeer {
	lp := uint32(200)
	return bgp.DesiredPeer{
		Peer: bgp.Peer{
			Name: name, Address: netip.MustParseAddr(addr), ASN: 65100, Port: 179,
			Timers:          bgp.Timers{ConnectRetry: time.Second, HoldTime: 9 * time.Second, Keepalive: 3 * time.Second},
			GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second},
			Families:        []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast},
			MaxPrefixes:     map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: 10},
		},
		Export: map[netip.Prefix]bgp.PathAttributes{
			netip.MustParsePrefix("10.244.1.0/24"):   {Communities: []uint32{0xFDE90064}, LocalPreference: &lp, NextHop: netip.MustParseAddr("10.0.0.1")},
			netip.MustParsePrefix("2001:db8:7::/64"): {LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}}},
		},
	}
}

func state() bgp.Desired {
	md5 := peer("md5", "10.0.0.3")
	md5.Password = "s3cret"
	anyExternal := peer("red-any", "172.16.0.3")
	anyExternal.ASN, anyExternal.DynamicASN = 0, bgp.ASNExternal
	return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{
		keyDefault: {
			Global: bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.255.0.1"), ListenPort: 179,
				ListenAddresses: []netip.Addr{netip.MustParseAddr("10.0.0.1")}, Restarting: true},
			Peers: map[string]bgp.DesiredPeer{"tor-a": peer("tor-a", "10.0.0.2"), "md5": md5},
		},
		keyRed: {
			Global: bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.255.0.1"), BindDevice: "red"},
			Peers:  map[string]bgp.DesiredPeer{"red-a": peer("red-a", "172.16.0.2"), "red-any": anyExternal},
		},
	}}
}

// TestRoundTrip: what Encode writes, Decode reads back as it was — except what is
// never recorded: peers with a TCP MD5 key and the restarting flag.
func TestRoundTrip(t *testing.T) {
	in := Checkpoint{NodeName: "n1", BootID: "b1", Desired: state()}
	data, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cret") || strings.Contains(string(data), `"md5"`) {
		t.Fatalf("the MD5 peer is in the checkpoint:\n%s", data)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, data)
	}
	want := Checkpoint{NodeName: "n1", BootID: "b1", Desired: state()}
	delete(want.Desired.Instances[keyDefault].Peers, "md5")
	g := want.Desired.Instances[keyDefault]
	g.Global.Restarting = false
	want.Desired.Instances[keyDefault] = g
	if diff := cmp.Diff(want, got, cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	again, err := Encode(got)
	if err != nil || string(again) != string(data) {
		t.Errorf("one state encodes to different bytes (err %v):\n%s\n---\n%s", err, data, again)
	}
	empty, err := Encode(Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(empty); err != nil || len(got.Desired.Instances) != 0 {
		t.Errorf("empty state: %+v, %v", got, err)
	}
}

// TestDecodeRefuses: a file the speakers could not run as written is refused whole.
func TestDecodeRefuses(t *testing.T) {
	good, err := Encode(Checkpoint{BootID: "b1", Desired: state()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"not JSON", `{`, `[`, "checkpoint:"},
		{"other version", `"version": 2`, `"version": 1`, "version 1"},
		{"unknown field", `"bootID"`, `"bootId2": 1, "bootID"`, "unknown field"},
		{"password", `"Password": ""`, `"Password": "x"`, "password"},
		{"ASN not the key's", `"ASN": 65001`, `"ASN": 65002`, "does not match"},
		{"router ID IPv6", `"RouterID": "10.255.0.1"`, `"RouterID": "2001:db8::1"`, "router ID"},
		{"router ID missing", `"RouterID": "10.255.0.1"`, `"RouterID": ""`, "router ID"},
		{"peer address missing", `"Address": "10.0.0.2"`, `"Address": ""`, "invalid address"},
		{"peer ASN missing", `"DynamicASN": "External",`, ``, "no ASN"},
		{"unknown family", `"ipv6-unicast"`, `"l2vpn-evpn"`, "unknown family"},
		{"prefix not masked", `"10.244.1.0/24"`, `"10.244.1.1/24"`, "invalid prefix"},
		{"peer twice", `"Name": "red-a"`, `"Name": "tor-a"`, ""},
		{"trailing data", "\n}", "\n}{}", "after the document"},
		{"restarting", `"Restarting": false`, `"Restarting": true`, "restarting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Replace(string(good), tc.from, tc.to, 1)
			if data == string(good) {
				t.Fatalf("%q is not in the encoded file:\n%s", tc.from, good)
			}
			if tc.name == "peer twice" { // both peers into one instance
				data = strings.Replace(string(good), `"Name": "red-a"`, `"Name": "tor-a"`, 1)
				data = strings.Replace(data, `"VRF": "red"`, `"VRF": ""`, 1)
			}
			_, err := Decode([]byte(data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestWriteReplacesAtomically: Write leaves one file, readable by its owner only, and
// no temporary file; Read finds nothing where nothing was written.
func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	if _, _, ok, err := Read(dir); ok || err != nil {
		t.Fatalf("Read of an empty directory: %v, %v", ok, err)
	}
	for _, bootID := range []string{"b1", "b2"} {
		data, err := Encode(Checkpoint{BootID: bootID, Desired: state()})
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(dir, data); err != nil {
			t.Fatal(err)
		}
		c, raw, ok, err := Read(dir)
		if err != nil || !ok || c.BootID != bootID || string(raw) != string(data) {
			t.Fatalf("Read after Write: %v %v %q", ok, err, c.BootID)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("state directory holds %v (%v), want only %s", entries, err, FileName)
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("checkpoint mode %v (%v), want 0600", info.Mode(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := Read(dir); ok || err == nil {
		t.Errorf("Read of a corrupted checkpoint: %v, %v", ok, err)
	}
}

// TestBelongs: a checkpoint is restored only on the node and in the boot it was
// written in.
func TestBelongs(t *testing.T) {
	c := Checkpoint{NodeName: "n1", BootID: "b1"}
	for _, tc := range []struct {
		node, boot string
		want       bool
	}{
		{"n1", "b1", true},
		{"n2", "b1", false},
		{"n1", "b2", false},
		{"n1", "", false},
		{"", "b1", false},
	} {
		if err := c.Belongs(tc.node, tc.boot); (err == nil) != tc.want {
			t.Errorf("node %q boot %q: %v, want usable %v", tc.node, tc.boot, err, tc.want)
		}
	}
	if err := (Checkpoint{BootID: "b1"}).Belongs("n1", "b1"); err == nil {
		t.Error("a checkpoint that names no node is restored")
	}
}
