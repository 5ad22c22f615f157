//go:build bench

package bench

import (
	"cmp"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// capture is tcpdump(1) recording the BGP packets of one interface, in FRR's
// namespace, to time a session's UPDATEs with the kernel's timestamps (microseconds)
// where polling FRR resolves only its 50 ms interval and the gaps while it is busy.
type capture struct {
	proc *netlab.Process
	path string
}

// startCapture starts tcpdump on ifname inside ns and waits until it listens.
func startCapture(t *testing.T, ns *netlab.Namespace, ifname string) *capture {
	t.Helper()
	path := filepath.Join(ns.Lab().Dir(), fmt.Sprintf("%s-%d.pcap", ifname, time.Now().UnixNano()))
	// --immediate-mode hands tcpdump each packet as it comes (without it the kernel
	// hands over blocks of packets, and the last block is lost when tcpdump is
	// stopped), -U writes each packet as it comes, -B gives the kernel buffer room for
	// bursts of 64 KiB UPDATEs, and the filter keeps only BGP.
	proc := ns.Start("tcpdump-"+ifname, "tcpdump", "-i", ifname, "-w", path, "--immediate-mode", "-U", "-n", "-s", "0", "-B", "32768", "tcp port 179")
	netlab.WaitFor(t, 10*time.Second, 20*time.Millisecond, func() (bool, string) {
		return strings.Contains(proc.Log(), "listening on"), "tcpdump listening: " + proc.Log()
	})
	return &capture{proc: proc, path: path}
}

// wireTimes is what a capture shows of the session a speaker brought up: when the
// speaker became Established (FRR's first KEEPALIVE, which completes the speaker's
// OpenConfirm, passing FRR's interface) and when its first and last UPDATE that
// announces something left it.
type wireTimes struct {
	established, firstUpdate, lastUpdate time.Time
	updates                              int
	// connect is when the session's TCP connection was opened (its SYN), speakerDialed
	// whether the speaker opened it (or FRR did).
	connect       time.Time
	speakerDialed bool
	// speakerDials counts the connections the speaker opened in the capture, the
	// session's included: more than one means attempts before the session's failed.
	speakerDials int
}

func (w wireTimes) toFirst() time.Duration { return w.firstUpdate.Sub(w.established) }
func (w wireTimes) toLast() time.Duration  { return w.lastUpdate.Sub(w.established) }

// stop ends the capture and reads the session from speaker out of it: of the TCP
// connections on port 179 (a speaker may try several while FRR keeps the neighbor
// shut down), the one that carried the most bytes.
func (c *capture) stop(t *testing.T, speaker netip.Addr) wireTimes {
	t.Helper()
	if err := c.proc.Stop(); err != nil {
		t.Fatal(err)
	}
	flows, err := readFlows(c.path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(c.path)
	var best *tcpFlow
	for _, f := range flows {
		if best == nil || f.bytes() > best.bytes() {
			best = f
		}
	}
	if best == nil {
		t.Fatalf("capture %s: no BGP connection", c.path)
	}
	from, to := best.half(speaker, true), best.half(speaker, false)
	w := wireTimes{connect: from.dialed, speakerDialed: !from.dialed.IsZero()}
	for _, f := range flows {
		if !f.half(speaker, true).dialed.IsZero() {
			w.speakerDials++
		}
	}
	if !w.speakerDialed {
		w.connect = to.dialed
	}
	for _, m := range to.messages(t) {
		if m.Type == gobgptest.WireKeepalive {
			w.established = m.at
			break
		}
	}
	for _, m := range from.messages(t) {
		if m.Announces() && !m.at.Before(w.established) {
			if w.firstUpdate.IsZero() {
				w.firstUpdate = m.at
			}
			w.lastUpdate = m.at
			w.updates++
		}
	}
	if w.established.IsZero() || w.firstUpdate.IsZero() {
		t.Fatalf("capture %s: no KEEPALIVE from FRR or no UPDATE from %s after it", c.path, speaker)
	}
	return w
}

// announced stops the capture and returns when each prefix was first announced by
// speaker, over every connection captured.
func (c *capture) announced(t *testing.T, speaker netip.Addr) map[netip.Prefix]time.Time {
	t.Helper()
	if err := c.proc.Stop(); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(c.path)
	flows, err := readFlows(c.path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[netip.Prefix]time.Time{}
	for _, f := range flows {
		for _, m := range f.half(speaker, true).messages(t) {
			if !m.Announces() {
				continue
			}
			ps, err := gobgptest.UpdatePrefixes(m.raw)
			if err != nil {
				t.Logf("capture: UPDATE at byte %d: %v", m.Offset, err)
			}
			for _, p := range ps {
				if _, ok := out[p]; !ok {
					out[p] = m.at
				}
			}
		}
	}
	return out
}

// tcpFlow is one TCP connection, both directions, keyed by the speaker-side address
// and port.
type tcpFlow struct {
	halves map[bool]*tcpHalf // key: sent by the lower address
}

func (f *tcpFlow) bytes() int {
	n := 0
	for _, h := range f.halves {
		n += h.size()
	}
	return n
}

// half is the direction from (fromSpeaker) or to the speaker.
func (f *tcpFlow) half(speaker netip.Addr, fromSpeaker bool) *tcpHalf {
	for _, h := range f.halves {
		if (h.src == speaker) == fromSpeaker {
			return h
		}
	}
	return &tcpHalf{}
}

// tcpHalf is one direction's segments, by sequence number, with the time each was
// captured. Without the SYN (a capture started on a running session) the first
// segment captured is taken as the start of the stream: B2 starts its captures while
// the session is quiet, so that segment begins a message.
type tcpHalf struct {
	src      netip.Addr
	isn      uint32
	synSeen  bool
	segments []segment
	// dialed is when this side sent the connection's first SYN (zero: it answered).
	dialed time.Time
}

type segment struct {
	offset  uint32
	payload []byte
	at      time.Time
}

func (h *tcpHalf) size() int {
	n := 0
	for _, s := range h.segments {
		n += len(s.payload)
	}
	return n
}

// timedMessage is a BGP message, its bytes and the capture time of the segment it
// starts in.
type timedMessage struct {
	gobgptest.WireMessage
	raw []byte
	at  time.Time
}

// messages reassembles the stream (retransmitted bytes are kept once) and splits it
// into BGP messages.
func (h *tcpHalf) messages(t *testing.T) []timedMessage {
	slices.SortStableFunc(h.segments, func(a, b segment) int { return cmp.Compare(a.offset, b.offset) })
	var stream []byte
	var starts []segment // offset and time of each segment kept
	for _, s := range h.segments {
		end := int(s.offset) + len(s.payload)
		if end <= len(stream) || int(s.offset) > len(stream) {
			continue // already have it, or a gap (lost from the capture)
		}
		starts = append(starts, segment{offset: uint32(len(stream)), at: s.at})
		stream = append(stream, s.payload[len(stream)-int(s.offset):]...)
	}
	msgs, err := gobgptest.SplitMessages(stream)
	if err != nil {
		t.Logf("capture: %v (kept the %d messages before it)", err, len(msgs))
	}
	out := make([]timedMessage, len(msgs))
	for i, m := range msgs {
		j, found := slices.BinarySearchFunc(starts, uint32(m.Offset), func(s segment, off uint32) int { return cmp.Compare(s.offset, off) })
		if !found {
			j--
		}
		out[i] = timedMessage{WireMessage: m, raw: stream[m.Offset : m.Offset+m.Len], at: starts[j].at}
	}
	return out
}

// readFlows reads a pcap file into its TCP connections.
func readFlows(path string) (map[string]*tcpFlow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	flows := map[string]*tcpFlow{}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break // io.EOF, or a packet cut off as tcpdump stopped
		}
		p := gopacket.NewPacket(data, r.LinkType(), gopacket.DecodeOptions{Lazy: true, NoCopy: true})
		ip, _ := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		tcp, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if ip == nil || tcp == nil {
			continue
		}
		src, _ := netip.AddrFromSlice(ip.SrcIP.To4())
		dst, _ := netip.AddrFromSlice(ip.DstIP.To4())
		a, b := netip.AddrPortFrom(src, uint16(tcp.SrcPort)), netip.AddrPortFrom(dst, uint16(tcp.DstPort))
		lower := a.Compare(b) < 0
		key := fmt.Sprint(min(a.String(), b.String()), max(a.String(), b.String()))
		flow := flows[key]
		if flow == nil {
			flow = &tcpFlow{halves: map[bool]*tcpHalf{}}
			flows[key] = flow
		}
		h := flow.halves[lower]
		if h == nil {
			h = &tcpHalf{src: src}
			flow.halves[lower] = h
		}
		if tcp.SYN {
			h.isn, h.synSeen = tcp.Seq, true
			if !tcp.ACK && h.dialed.IsZero() {
				h.dialed = ci.Timestamp
			}
			continue
		}
		if !h.synSeen && len(h.segments) == 0 && len(tcp.Payload) > 0 {
			h.isn, h.synSeen = tcp.Seq-1, true
		}
		if len(tcp.Payload) > 0 {
			h.segments = append(h.segments, segment{offset: tcp.Seq - h.isn - 1, payload: slices.Clone(tcp.Payload), at: ci.Timestamp})
		}
	}
	return flows, nil
}
