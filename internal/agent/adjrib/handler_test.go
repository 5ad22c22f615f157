package adjrib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// fakeSource is a node with peers and their Adj-RIBs (the same routes each side); a
// peer named "broken" cannot be listed.
type fakeSource struct {
	snap   map[bgp.InstanceKey]speakers.InstanceSnapshot
	routes map[speakers.PeerRef][]bgp.ReceivedRoute
}

func (f fakeSource) Snapshot(context.Context) (map[bgp.InstanceKey]speakers.InstanceSnapshot, error) {
	return f.snap, nil
}

func (f fakeSource) AdjRIB(_ context.Context, ref speakers.PeerRef, _ bgp.AdjRIB) ([]bgp.ReceivedRoute, error) {
	if ref.Name == "broken" {
		return nil, errors.New("speaker gone")
	}
	return f.routes[ref], nil
}

func newSource() fakeSource {
	med := uint32(7)
	f := fakeSource{snap: map[bgp.InstanceKey]speakers.InstanceSnapshot{}, routes: map[speakers.PeerRef][]bgp.ReceivedRoute{}}
	add := func(asn uint32, vrf, name, addr string, prefixes ...string) {
		ref := speakers.PeerRef{Instance: bgp.InstanceKey{LocalASN: asn, VRF: vrf}, Name: name}
		inst := f.snap[ref.Instance]
		if inst.Peers == nil {
			inst.Peers = map[string]speakers.PeerSnapshot{}
		}
		inst.Peers[name] = speakers.PeerSnapshot{Peer: bgp.Peer{Name: name, Address: netip.MustParseAddr(addr)}, Status: bgp.PeerStatus{State: bgp.StateEstablished}}
		f.snap[ref.Instance] = inst
		for _, p := range prefixes {
			f.routes[ref] = append(f.routes[ref], bgp.ReceivedRoute{Prefix: netip.MustParsePrefix(p), NextHop: netip.MustParseAddr("10.0.0.1"),
				ASPath: []uint32{65100, 65100}, Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 100}, MED: &med,
					LinkBandwidth: bgp.LinkBandwidth{ASN: asn, BytesPerSecond: 125000}}})
		}
	}
	// The snapshot is maps: the answer sorts by instance, then name.
	add(65001, "", "tor1", "10.0.0.254", "10.244.1.0/24", "198.51.100.10/32", "198.51.100.11/32")
	add(65001, "", "tor2", "10.0.1.254")
	add(65001, "red", "broken", "10.1.0.254")
	add(65001, "red", "pe", "10.1.0.253", "203.0.113.0/24", "2001:db8::/64")
	return f
}

func get(t *testing.T, h http.Handler, params url.Values) (int, adjribapi.Routes, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, adjribapi.Path+"?"+params.Encode(), nil))
	var out adjribapi.Routes
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
	}
	return rec.Code, out, rec.Body.String()
}

// flat lists a page as "peer prefix" lines, a peer without routes as "peer -", a peer
// that could not be listed as "peer !".
func flat(r adjribapi.Routes) []string {
	var out []string
	for _, p := range r.Peers {
		name := fmt.Sprintf("%d/%s/%s", p.LocalASN, p.VRF, p.Name)
		switch {
		case p.Error != "":
			out = append(out, name+" !")
		case len(p.Routes) == 0:
			out = append(out, name+" -")
		}
		for _, rt := range p.Routes {
			out = append(out, name+" "+rt.Prefix)
		}
	}
	return out
}

func TestFilters(t *testing.T) {
	h := Handler(newSource(), nil, "n1")
	for _, tc := range []struct {
		name   string
		params url.Values
		want   []string
	}{
		{"everything", url.Values{"side": {"advertised"}}, []string{"65001//tor1 10.244.1.0/24", "65001//tor1 198.51.100.10/32", "65001//tor1 198.51.100.11/32",
			"65001//tor2 -", "65001/red/broken !", "65001/red/pe 203.0.113.0/24", "65001/red/pe 2001:db8::/64"}},
		{"an address is its host route", url.Values{"side": {"advertised"}, "prefix": {"198.51.100.10"}},
			[]string{"65001//tor1 198.51.100.10/32", "65001//tor2 -", "65001/red/broken !", "65001/red/pe -"}},
		{"routes inside a prefix, IPv6 too", url.Values{"side": {"advertised"}, "prefix": {"::/0"}},
			[]string{"65001//tor1 -", "65001//tor2 -", "65001/red/broken !", "65001/red/pe 2001:db8::/64"}},
		{"a covering route is not inside", url.Values{"side": {"advertised"}, "prefix": {"10.244.1.0/25"}},
			[]string{"65001//tor1 -", "65001//tor2 -", "65001/red/broken !", "65001/red/pe -"}},
		{"one peer", url.Values{"side": {"advertised"}, "peer": {"pe"}}, []string{"65001/red/pe 203.0.113.0/24", "65001/red/pe 2001:db8::/64"}},
		{"received", url.Values{"side": {"received"}, "peer": {"pe"}}, []string{"65001/red/pe 203.0.113.0/24", "65001/red/pe 2001:db8::/64"}},
	} {
		code, got, body := get(t, h, tc.params)
		if code != http.StatusOK || !slices.Equal(flat(got), tc.want) || got.Continue != "" || got.Node != "n1" {
			t.Errorf("%s: %d %q continue %q\ngot  %q\nwant %q", tc.name, code, body, got.Continue, flat(got), tc.want)
		}
	}
	code, got, _ := get(t, h, url.Values{"side": {"advertised"}, "prefix": {"198.51.100.10"}})
	rt := got.Peers[0].Routes[0]
	if code != http.StatusOK || rt.NextHop != "10.0.0.1" || !slices.Equal(rt.Communities, []string{"65001:100"}) || !slices.Equal(rt.ASPath, []uint32{65100, 65100}) ||
		rt.MED == nil || *rt.MED != 7 || rt.LinkBandwidth == nil || *rt.LinkBandwidth != (adjribapi.LinkBandwidth{ASN: 65001, BytesPerSecond: 125000}) || rt.Kernel != nil {
		t.Errorf("attributes: %+v", rt)
	}
}

// TestPaging walks every page size: the pages together are the whole answer, each
// route once, and no page holds more routes than asked.
func TestPaging(t *testing.T) {
	h := Handler(newSource(), nil, "n1")
	_, whole, _ := get(t, h, url.Values{"side": {"advertised"}})
	routes := func(lines []string) []string {
		return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return l[len(l)-1] == '-' || l[len(l)-1] == '!' })
	}
	for limit := 1; limit <= 6; limit++ {
		var all []string
		params := url.Values{"side": {"advertised"}, "limit": {fmt.Sprint(limit)}}
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatalf("limit %d: no end", limit)
			}
			code, got, body := get(t, h, params)
			if code != http.StatusOK {
				t.Fatalf("limit %d: %d %s", limit, code, body)
			}
			if n := len(routes(flat(got))); n > limit {
				t.Errorf("limit %d: a page of %d routes", limit, n)
			}
			all = append(all, routes(flat(got))...)
			if got.Continue == "" {
				break
			}
			params.Set("continue", got.Continue)
		}
		if want := routes(flat(whole)); !slices.Equal(all, want) {
			t.Errorf("limit %d: pages together\n%q\nwant\n%q", limit, all, want)
		}
	}
}

func TestRefusals(t *testing.T) {
	h := Handler(newSource(), nil, "n1")
	for name, params := range map[string]url.Values{
		"no side":        {},
		"unknown side":   {"side": {"both"}},
		"bad prefix":     {"side": {"advertised"}, "prefix": {"10.0.0.300"}},
		"zero limit":     {"side": {"advertised"}, "limit": {"0"}},
		"huge limit":     {"side": {"advertised"}, "limit": {"1000000"}},
		"forged token":   {"side": {"advertised"}, "continue": {"not-a-token"}},
		"token, no peer": {"side": {"advertised"}, "continue": {encodeToken(position{prefix: netip.MustParsePrefix("10.0.0.0/8")})}},
	} {
		if code, _, body := get(t, h, params); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, code, body)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, adjribapi.Path+"?side=advertised", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", rec.Code)
	}
}

// FuzzParseQuery: no query makes the parser panic, and a continue token it accepts
// names a peer and a valid prefix.
func FuzzParseQuery(f *testing.F) {
	f.Add("advertised", "10.0.0.0/8", "10", encodeToken(position{ref: speakers.PeerRef{Name: "tor1"}, prefix: netip.MustParsePrefix("10.0.0.0/8")}))
	f.Add("received", "::1", "", "")
	f.Fuzz(func(t *testing.T, side, prefix, limit, cont string) {
		q, err := parseQuery(url.Values{"side": {side}, "prefix": {prefix}, "limit": {limit}, "continue": {cont}})
		if err != nil {
			return
		}
		if q.after != nil && (q.after.ref.Name == "" || !q.after.prefix.IsValid()) {
			t.Errorf("accepted token %q as %+v", cont, q.after)
		}
		if q.limit < 1 || q.limit > adjribapi.MaxLimit {
			t.Errorf("limit %d", q.limit)
		}
	})
}

// fakeKernel knows the state of some routes by peer address and prefix; any other is
// not imported.
type fakeKernel map[string]adjribapi.Kernel

func (k fakeKernel) RouteState(peer netip.Addr, prefix netip.Prefix) (bool, string) {
	if s, ok := k[peer.String()+" "+prefix.String()]; ok {
		return s.Installed, s.Reason
	}
	return false, "not-imported"
}

// TestReceivedRoutesInTheKernel: a received route of the default VRF carries its state
// in the kernel, asked by its peer's address, or as-path-loop when its AS path holds
// the instance's AS; an advertised route, a VRF peer's route, and every route when the
// agent installs none (nil) carry none.
func TestReceivedRoutesInTheKernel(t *testing.T) {
	k := fakeKernel{
		"10.0.0.254 10.244.1.0/24":    {Installed: true},
		"10.0.0.254 198.51.100.10/32": {Reason: "over-max-routes"},
		"10.1.0.253 203.0.113.0/24":   {Installed: true},
		"10.0.0.254 10.250.0.0/16":    {Installed: true}, // never asked: the AS path says
	}
	src := newSource()
	tor1 := speakers.PeerRef{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: "tor1"}
	src.routes[tor1] = slices.Insert(src.routes[tor1], 1, bgp.ReceivedRoute{Prefix: netip.MustParsePrefix("10.250.0.0/16"),
		NextHop: netip.MustParseAddr("10.0.0.254"), ASPath: []uint32{65100, 65001, 65200}})
	states := func(r adjribapi.Routes) []string {
		var out []string
		for _, p := range r.Peers {
			for _, rt := range p.Routes {
				s := "nil"
				if rt.Kernel != nil {
					s = fmt.Sprintf("%v %s", rt.Kernel.Installed, rt.Kernel.Reason)
				}
				out = append(out, p.Name+" "+rt.Prefix+": "+s)
			}
		}
		return out
	}
	received := []string{
		"tor1 10.244.1.0/24: true ", "tor1 10.250.0.0/16: false as-path-loop", "tor1 198.51.100.10/32: false over-max-routes", "tor1 198.51.100.11/32: false not-imported",
		"pe 203.0.113.0/24: nil", "pe 2001:db8::/64: nil",
	}
	none := []string{
		"tor1 10.244.1.0/24: nil", "tor1 10.250.0.0/16: nil", "tor1 198.51.100.10/32: nil", "tor1 198.51.100.11/32: nil",
		"pe 203.0.113.0/24: nil", "pe 2001:db8::/64: nil",
	}
	for _, tc := range []struct {
		name   string
		kernel Kernel
		side   string
		want   []string
	}{
		{"received", k, adjribapi.Received, received},
		{"advertised", k, adjribapi.Advertised, none},
		{"no installer", nil, adjribapi.Received, none},
	} {
		code, got, body := get(t, Handler(src, tc.kernel, "n1"), url.Values{"side": {tc.side}})
		if code != http.StatusOK || !slices.Equal(states(got), tc.want) {
			t.Errorf("%s: %d %s\ngot  %q\nwant %q", tc.name, code, body, states(got), tc.want)
		}
	}
}
