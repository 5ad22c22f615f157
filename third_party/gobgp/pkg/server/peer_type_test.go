package server

import (
	"context"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/config/oc"
)

// TestPeerTypeLimitsAnyASN: a neighbor configured with peer-as 0 and a peer type
// accepts only ASNs of that type (FRR's "remote-as internal|external"); it answers
// the other type's OPEN with a notification (Bad Peer AS) and never comes up.
func TestPeerTypeLimitsAnyASN(t *testing.T) {
	for _, tc := range []struct {
		name        string
		typ         oc.PeerType
		remoteAS    uint32
		established bool
	}{
		{"external accepts another ASN", oc.PEER_TYPE_EXTERNAL, 65002, true},
		{"external refuses its own ASN", oc.PEER_TYPE_EXTERNAL, 65001, false},
		{"internal accepts its own ASN", oc.PEER_TYPE_INTERNAL, 65001, true},
		{"internal refuses another ASN", oc.PEER_TYPE_INTERNAL, 65002, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := runNewServer(t, 65001, "1.1.1.1", 10179)
			defer s.StopBgp(ctx, &api.StopBgpRequest{})
			remote := runNewServer(t, tc.remoteAS, "2.2.2.2", 20179)
			defer remote.StopBgp(ctx, &api.StopBgpRequest{})

			anyASN := func(_ *BgpServer, _ *oc.Global, p *oc.Neighbor) {
				p.Config.PeerAs = 0
				p.Config.PeerType = tc.typ
			}
			if err := peerTwoServers(t, ctx, s, remote, nil, false, anyASN); err != nil {
				t.Fatal(err)
			}
			if err := peerTwoServers(t, ctx, remote, s, nil, true); err != nil {
				t.Fatal(err)
			}

			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				var st *api.PeerState
				if err := s.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) { st = p.State }); err != nil || st == nil {
					t.Fatalf("listing the peer: %v (state %v)", err, st)
				}
				up := st.SessionState == api.PeerState_SESSION_STATE_ESTABLISHED
				refused := st.Messages.GetSent().GetNotification() > 0
				switch {
				case up && tc.established:
					if st.PeerAsn != tc.remoteAS {
						t.Errorf("established with ASN %d, want %d", st.PeerAsn, tc.remoteAS)
					}
					return
				case up:
					t.Fatalf("established with ASN %d, want it refused as not %s", st.PeerAsn, tc.typ)
				case refused && !tc.established:
					return
				case refused:
					t.Fatal("sent a notification, want the session established")
				}
			}
			t.Fatalf("neither established nor refused in 10 s (want established %v)", tc.established)
		})
	}
}
