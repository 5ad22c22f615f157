package gobgp

import (
	"fmt"

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
	WireOpen      = gobgppacket.BGP_MSG_OPEN
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
