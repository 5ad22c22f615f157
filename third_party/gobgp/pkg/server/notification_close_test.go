package server

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// floodingPeer is the far end of a session with a prefix limit of 100: it takes the
// connection the server dials, completes the OPEN exchange, and then writes UPDATEs
// of fresh /24s as fast as the connection takes them, as a router sending a full
// table does. The messages it reads arrive on msgs; the error that ended its reading
// on readErr; its first write error is kept in writeErr.
type floodingPeer struct {
	conn     net.Conn
	msgs     chan *bgp.BGPMessage
	readErr  chan error
	writeErr atomic.Pointer[error]
}

func startFloodingPeer(t *testing.T) *floodingPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := runNewServer(t, 65001, "1.1.1.1", -1)
	t.Cleanup(func() { s.StopBgp(context.Background(), &api.StopBgpRequest{}) })
	ipv4 := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	if err := s.AddPeer(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65002},
		Transport: &api.Transport{RemotePort: uint32(ln.Addr().(*net.TCPAddr).Port)},
		AfiSafis: []*api.AfiSafi{{
			Config:       &api.AfiSafiConfig{Family: ipv4, Enabled: true},
			PrefixLimits: &api.PrefixLimit{Family: ipv4, MaxPrefixes: 100},
		}},
	}}); err != nil {
		t.Fatal(err)
	}
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal("the server did not dial:", err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &floodingPeer{conn: conn, msgs: make(chan *bgp.BGPMessage, 16), readErr: make(chan error, 1)}
	go p.read()

	open, _ := bgp.NewBGPOpenMessage(65002, 90, netip.MustParseAddr("2.2.2.2"), []bgp.OptionParameterInterface{
		bgp.NewOptionParameterCapability([]bgp.ParameterCapabilityInterface{
			bgp.NewCapMultiProtocol(bgp.RF_IPv4_UC), bgp.NewCapFourOctetASNumber(65002),
		}),
	})
	p.write(t, open, bgp.NewBGPKeepAliveMessage())
	for _, want := range []uint8{bgp.BGP_MSG_OPEN, bgp.BGP_MSG_KEEPALIVE} {
		if m := p.next(t); m.Header.Type != want {
			t.Fatalf("the server sent message type %d, want %d", m.Header.Type, want)
		}
	}
	go p.flood()
	return p
}

func (p *floodingPeer) write(t *testing.T, msgs ...*bgp.BGPMessage) {
	t.Helper()
	for _, m := range msgs {
		b, err := m.Serialize()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.conn.Write(b); err != nil {
			t.Fatal(err)
		}
	}
}

// read sends the messages it reads to p.msgs, then the error that ended the
// reading to p.readErr.
func (p *floodingPeer) read() {
	for {
		var header [bgp.BGP_HEADER_LENGTH]byte
		if _, err := io.ReadFull(p.conn, header[:]); err != nil {
			p.readErr <- err
			return
		}
		buf := make([]byte, binary.BigEndian.Uint16(header[16:18]))
		copy(buf, header[:])
		if _, err := io.ReadFull(p.conn, buf[len(header):]); err != nil {
			p.readErr <- err
			return
		}
		m, err := bgp.ParseBGPMessage(buf)
		if err != nil {
			p.readErr <- err
			return
		}
		p.msgs <- m
	}
}

func (p *floodingPeer) next(t *testing.T) *bgp.BGPMessage {
	t.Helper()
	select {
	case m := <-p.msgs:
		return m
	case err := <-p.readErr:
		t.Fatal("the connection ended:", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no message in 10 s")
	}
	return nil
}

// flood writes UPDATEs of 800 /24s each until a write fails.
func (p *floodingPeer) flood() {
	nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("127.0.0.1"))
	attrs := []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(0),
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65002})}),
		nh,
	}
	for i := 0; ; i++ {
		nlri := make([]bgp.PathNLRI, 0, 800)
		for j := range 800 {
			n := (i*800 + j) % (1 << 16)
			prefix, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("20." + strconv.Itoa(n>>8) + "." + strconv.Itoa(n&0xff) + ".0/24"))
			nlri = append(nlri, bgp.PathNLRI{NLRI: prefix})
		}
		b, _ := bgp.NewBGPUpdateMessage(nil, attrs, nlri).Serialize()
		if _, err := p.conn.Write(b); err != nil {
			p.writeErr.Store(&err)
			return
		}
	}
}

// notification waits for the server's NOTIFICATION, skipping its KEEPALIVEs.
func (p *floodingPeer) notification(t *testing.T) *bgp.BGPNotification {
	t.Helper()
	for {
		m := p.next(t)
		if n, ok := m.Body.(*bgp.BGPNotification); ok {
			return n
		}
	}
}

// endOfConnection is the error that ended the peer's reading, after the
// NOTIFICATION: io.EOF when the server closed its side with a FIN.
func (p *floodingPeer) endOfConnection(t *testing.T) error {
	t.Helper()
	select {
	case m := <-p.msgs:
		t.Fatalf("the server sent message type %d after its NOTIFICATION", m.Header.Type)
	case err := <-p.readErr:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was still open 10 s after the NOTIFICATION")
	}
	return nil
}

// TestNotificationReachesAFloodingPeer: a peer that exceeds the prefix limit while it
// still sends gets the NOTIFICATION (Cease, maximum number of prefixes reached) and
// then the end of the connection as a FIN, and its writes do not fail before it has
// read both. Closing the socket with the peer's data unread would reset the
// connection instead: the peer reads "connection reset" after the NOTIFICATION, and
// its writes fail, which a router may act on before it reads the NOTIFICATION.
func TestNotificationReachesAFloodingPeer(t *testing.T) {
	p := startFloodingPeer(t)
	n := p.notification(t)
	if n.ErrorCode != bgp.BGP_ERROR_CEASE || n.ErrorSubcode != bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED {
		t.Fatalf("NOTIFICATION %d/%d, want Cease/maximum number of prefixes reached", n.ErrorCode, n.ErrorSubcode)
	}
	if err := p.endOfConnection(t); err != io.EOF {
		t.Errorf("after the NOTIFICATION the peer read %v, want the end of the stream (a FIN)", err)
	}
	if err := p.writeErr.Load(); err != nil {
		t.Errorf("the peer's writes failed before it had read the end of the connection: %v", *err)
	}
}

// TestNotificationLingerIsBounded: a peer that neither closes its side nor stops
// sending after the NOTIFICATION loses the connection once the linger has passed.
func TestNotificationLingerIsBounded(t *testing.T) {
	defer func(d time.Duration) { notificationLinger = d }(notificationLinger)
	notificationLinger = 300 * time.Millisecond
	p := startFloodingPeer(t)
	p.notification(t)
	if err := p.endOfConnection(t); err != io.EOF {
		t.Fatalf("after the NOTIFICATION the peer read %v, want the end of the stream (a FIN)", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.writeErr.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the peer could still write 5 s after the NOTIFICATION; the linger is %v", notificationLinger)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := *p.writeErr.Load(); !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Errorf("the peer's write failed with %v, want the connection reset", err)
	}
}
