package bgp

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUpdatePrefixListsMadeToSize checks kbgp patch "an UPDATE's prefixes decoded into
// a list of their number": an extended UPDATE's withdrawn routes and NLRI decode into
// lists whose capacity is their length (the NLRI list grew from empty and the
// withdrawn one had a slot a byte), with and without ADD-PATH, and hold what was sent.
func TestUpdatePrefixListsMadeToSize(t *testing.T) {
	for _, addPath := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "add-path"}[addPath], func(t *testing.T) {
			var opts []*MarshallingOption
			if addPath {
				opts = append(opts, &MarshallingOption{AddPath: map[Family]BGPAddPathMode{RF_IPv4_UC: BGP_ADD_PATH_BOTH}})
			}
			opts = append(opts, &MarshallingOption{ExtendedMessage: true})
			withdrawn := prefixes(t, "10.0.0.0", 24, 1000, addPath)
			nlri := prefixes(t, "10.128.0.1", 32, 5000, addPath)
			nextHop, err := NewPathAttributeNextHop(netip.MustParseAddr("10.1.1.1"))
			require.NoError(t, err)
			attrs := []PathAttributeInterface{
				NewPathAttributeOrigin(0),
				NewPathAttributeAsPath([]AsPathParamInterface{NewAs4PathParam(BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})}),
				nextHop,
			}
			data, err := NewBGPUpdateMessage(withdrawn, attrs, nlri).Serialize(opts...)
			require.NoError(t, err)
			msg, err := ParseBGPMessage(data, opts...)
			require.NoError(t, err)
			u := msg.Body.(*BGPUpdate)

			require.Len(t, u.WithdrawnRoutes, len(withdrawn))
			require.Equal(t, len(withdrawn), cap(u.WithdrawnRoutes), "withdrawn routes' capacity")
			require.Len(t, u.NLRI, len(nlri))
			require.Equal(t, len(nlri), cap(u.NLRI), "NLRI's capacity")
			for i := range nlri {
				require.Equal(t, nlri[i].NLRI.String(), u.NLRI[i].NLRI.String())
				require.Equal(t, nlri[i].ID, u.NLRI[i].ID)
			}
			for i := range withdrawn {
				require.Equal(t, withdrawn[i].NLRI.String(), u.WithdrawnRoutes[i].NLRI.String())
				require.Equal(t, withdrawn[i].ID, u.WithdrawnRoutes[i].ID)
			}
		})
	}
}

// TestPrefixCount counts prefixes of every length, and cut-short data as one more.
func TestPrefixCount(t *testing.T) {
	for _, tc := range []struct {
		name       string
		data       []byte
		addpathLen int
		want       int
	}{
		{"empty", nil, 0, 0},
		{"default route", []byte{0}, 0, 1},
		{"/8, /9, /32", []byte{8, 10, 9, 10, 128, 32, 10, 0, 0, 1}, 0, 3},
		{"add-path /24", []byte{0, 0, 0, 7, 24, 10, 1, 2}, 4, 1},
		{"last cut short", []byte{24, 10, 1, 2, 32, 10}, 0, 2},
		{"path ID cut short", []byte{0, 0}, 4, 0},
		{"length past every byte", []byte{255}, 0, 1},
	} {
		require.Equal(t, tc.want, prefixCount(tc.data, tc.addpathLen), tc.name)
	}
}

// prefixes is n consecutive prefixes of length bits from first, with path IDs 1 to n
// when ids is set.
func prefixes(t *testing.T, first string, bits, n int, ids bool) []PathNLRI {
	t.Helper()
	addr := netip.MustParseAddr(first)
	out := make([]PathNLRI, 0, n)
	for i := range n {
		p, err := NewIPAddrPrefix(netip.PrefixFrom(addr, bits))
		require.NoError(t, err)
		out = append(out, PathNLRI{NLRI: p})
		if ids {
			out[i].ID = uint32(i + 1)
		}
		for range 1 << (32 - bits) {
			addr = addr.Next()
		}
	}
	return out
}
