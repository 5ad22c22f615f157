package gobgp

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgpapi"
)

// session is what the state watch learned about one peer.
type session struct {
	establishedSince time.Time
	lastDownReason   string
	drops            uint64
	// limits are the peer's maxPrefixes; held is set while the peer is held down for
	// exceeding them (see holddown.go), and lastBackoff is the last hold-down's length.
	limits      map[bgp.Family]uint32
	held        *heldDown
	lastBackoff time.Duration
	holdDowns   uint64
	// enabledAt is when a held-down peer was last re-enabled.
	enabledAt time.Time
}

// watch follows peer state changes. The callback only records the change and calls
// notify, which must not block: GoBGP delivers events from its own goroutine.
func (r *router) watch() error {
	ctx, cancel := context.WithCancel(context.Background())
	r.stopWatch = cancel
	err := r.srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, at time.Time) {
			if ev.Type != apiutil.PEER_EVENT_STATE {
				return
			}
			r.recordState(ev.Peer.State, at)
			r.notify()
		},
	}, server.WatchPeer())
	if err != nil {
		cancel()
		return fmt.Errorf("watch peers: %w", err)
	}
	if r.feed != nil {
		r.feed.watchCtx = ctx
	}
	return nil
}

func (r *router) recordState(st apiutil.PeerState, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[st.NeighborAddress]
	if !ok {
		return
	}
	if st.SessionState == gobgppacket.BGP_FSM_ESTABLISHED {
		if s.establishedSince.IsZero() {
			s.establishedSince = at
		}
		return
	}
	r.noteAdminState(st.NeighborAddress, s, st.AdminState, at)
	if !s.establishedSince.IsZero() {
		s.lastDownReason = downReason(st)
		s.drops++
	}
	s.establishedSince = time.Time{}
}

func downReason(st apiutil.PeerState) string {
	if st.DisconnectMessage != "" {
		return st.DisconnectMessage
	}
	return st.DisconnectReason.String()
}

// Peers lists every configured peer with its state and negotiated timers.
func (r *router) Peers(ctx context.Context) ([]bgp.PeerStatus, error) {
	var out []bgp.PeerStatus
	err := r.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		out = append(out, r.peerStatus(p))
	})
	if err != nil {
		return nil, fmt.Errorf("list peers: %w", err)
	}
	return out, nil
}

func (r *router) peerStatus(p *api.Peer) bgp.PeerStatus {
	addr, _ := netip.ParseAddr(p.GetConf().GetNeighborAddress())
	st := bgp.PeerStatus{Address: addr, State: gobgpapi.SessionState(p.GetState().GetSessionState())}
	if p.GetBfd().GetEnabled() {
		st.BFDState = bfdState(p.GetState().GetBfdState().GetSessionState())
	}
	if id, err := netip.ParseAddr(p.GetState().GetRouterId()); err == nil {
		st.RemoteRouterID = id
	}
	st.RemoteASN = p.GetState().GetPeerAsn()
	if st.State == bgp.StateEstablished {
		t := p.GetTimers().GetState()
		st.HoldTime = time.Duration(t.GetNegotiatedHoldTime()) * time.Second
		st.Keepalive = time.Duration(t.GetKeepaliveInterval()) * time.Second
		if up := t.GetUptime(); up != nil {
			st.EstablishedSince = up.AsTime()
		}
		st.AddPathsSend = addPathsSendNegotiated(p)
	}
	for _, afi := range p.GetAfiSafis() {
		if n := afi.GetState().GetReceived(); n > 0 {
			if st.ReceivedByFamily == nil {
				st.ReceivedByFamily = map[bgp.Family]uint64{}
			}
			st.ReceivedByFamily[familyOf(afi.GetConfig().GetFamily())] += n
		}
	}
	r.mu.Lock()
	if s, ok := r.sessions[addr]; ok {
		r.noteAdminState(addr, s, p.GetState().GetAdminState(), time.Now())
		if s.held != nil {
			st.HeldDown, st.HeldDownDetail = bgp.HeldDownMaxPrefixes, heldDownDetail(s)
		}
		st.LastDownReason = s.lastDownReason
		st.Drops = s.drops
		st.HeldDowns = s.holdDowns
		if st.EstablishedSince.IsZero() && st.State == bgp.StateEstablished {
			st.EstablishedSince = s.establishedSince
		}
	}
	r.mu.Unlock()
	return st
}

// bfdState maps GoBGP's BFD state; a peer whose BFD session GoBGP has not set up yet
// (it starts BFD peers on a one-second tick) is Down.
func bfdState(s api.BfdSessionState) bgp.BFDState {
	switch s {
	case api.BfdSessionState_BFD_SESSION_STATE_UP:
		return bgp.BFDUp
	case api.BfdSessionState_BFD_SESSION_STATE_INIT:
		return bgp.BFDInit
	case api.BfdSessionState_BFD_SESSION_STATE_ADMIN_DOWN:
		return bgp.BFDAdminDown
	default:
		return bgp.BFDDown
	}
}
