//go:build bench

package bench

import (
	"bufio"
	"net/netip"
	"os"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/packet/mrt"
)

// writeMRTTable writes addrs as an MRT TABLE_DUMPv2 file (RFC 6396) of /32s with
// ORIGIN IGP, an empty AS_PATH and NEXT_HOP nexthop, one peer (the speaker itself).
// `gobgp mrt inject global FILE` loads such a file into gobgpd's global RIB in
// streamed batches: the bulk load of the gobgpd baseline, where one `gobgp global rib
// add` per prefix would take minutes for 100k. Only this benchmark encodes MRT; it is
// not part of kbgp's speaker.
func writeMRTTable(path string, addrs []netip.Addr, nexthop netip.Addr, asn uint32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	now := time.Now()
	write := func(sub mrt.MRTSubTypeTableDumpv2, body mrt.Body) error {
		m, err := mrt.NewMRTMessage(now, mrt.TABLE_DUMPv2, sub, body)
		if err != nil {
			return err
		}
		b, err := m.Serialize()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	peers := []*mrt.Peer{mrt.NewPeer(nexthop, nexthop, asn, true)}
	if err := write(mrt.PEER_INDEX_TABLE, mrt.NewPeerIndexTable(nexthop, "bench", peers)); err != nil {
		f.Close()
		return err
	}
	nh, err := bgp.NewPathAttributeNextHop(nexthop)
	if err != nil {
		f.Close()
		return err
	}
	attrs := []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(bgp.BGP_ORIGIN_ATTR_TYPE_IGP),
		bgp.NewPathAttributeAsPath(nil),
		nh,
	}
	for i, a := range addrs {
		nlri, err := bgp.NewIPAddrPrefix(netip.PrefixFrom(a, 32))
		if err != nil {
			f.Close()
			return err
		}
		entry := mrt.NewRibEntry(0, uint32(now.Unix()), 0, attrs, false)
		if err := write(mrt.RIB_IPV4_UNICAST, mrt.NewRib(uint32(i), bgp.RF_IPv4_UC, nlri, []*mrt.RibEntry{entry})); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
