package gobgptest

import (
	"fmt"
	"net/netip"

	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// WireMessage is one BGP message in a byte stream read off the wire: where it starts,
// its type and its length with the header.
type WireMessage struct {
	Offset int
	Type   uint8
	Len    int
}

// Message types of WireMessage.Type.
const (
	WireUpdate    = gobgppacket.BGP_MSG_UPDATE
	WireKeepalive = gobgppacket.BGP_MSG_KEEPALIVE
)

// wireEndOfRIBv4 is the length of an IPv4 unicast End-of-RIB: an UPDATE with nothing
// in it.
const wireEndOfRIBv4 = gobgppacket.BGP_HEADER_LENGTH + 4

// Announces is whether an UPDATE carries more than an IPv4 End-of-RIB.
func (m WireMessage) Announces() bool { return m.Type == WireUpdate && m.Len > wireEndOfRIBv4 }

// SplitMessages splits one direction of a BGP session's TCP stream into its messages
// by their headers (GoBGP's decoder); a message cut off at the end of the stream is
// left out. The benchmarks time UPDATEs in a packet capture with it.
func SplitMessages(stream []byte) ([]WireMessage, error) {
	var out []WireMessage
	for off := 0; off+gobgppacket.BGP_HEADER_LENGTH <= len(stream); {
		var h gobgppacket.BGPHeader
		if err := h.DecodeFromBytes(stream[off:]); err != nil {
			return out, fmt.Errorf("BGP header at byte %d: %w", off, err)
		}
		if off+int(h.Len) > len(stream) {
			break
		}
		out = append(out, WireMessage{Offset: off, Type: h.Type, Len: int(h.Len)})
		off += int(h.Len)
	}
	return out, nil
}

// UpdatePrefixes returns the prefixes an UPDATE message (header included, as
// SplitMessages delimits it) announces, IPv4 and MP_REACH_NLRI alike, parsed by
// GoBGP's decoder. Sessions without ADD-PATH only: a path identifier would be read
// as a prefix.
func UpdatePrefixes(msg []byte) ([]netip.Prefix, error) {
	m, err := gobgppacket.ParseBGPMessage(msg)
	if err != nil {
		return nil, err
	}
	u, ok := m.Body.(*gobgppacket.BGPUpdate)
	if !ok {
		return nil, fmt.Errorf("message type %d is no UPDATE", m.Header.Type)
	}
	nlri := u.NLRI
	for _, a := range u.PathAttributes {
		if mp, ok := a.(*gobgppacket.PathAttributeMpReachNLRI); ok {
			nlri = append(nlri, mp.Value...)
		}
	}
	out := make([]netip.Prefix, 0, len(nlri))
	for _, n := range nlri {
		p, err := netip.ParsePrefix(n.NLRI.String())
		if err != nil {
			return out, fmt.Errorf("NLRI %s: %w", n.NLRI, err)
		}
		out = append(out, p)
	}
	return out, nil
}
