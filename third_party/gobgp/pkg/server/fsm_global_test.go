package server

import (
	"log/slog"
	"net/netip"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/stretchr/testify/require"
)

// TestFSMKeepsTheGlobalItStartedWith: StopBgp clears the server's global config while
// the goroutines of its deleted peers' FSMs may still read it (handleOpen reads the
// router ID): the race detector caught the two in kbgp's CI. An FSM keeps a copy of
// the global config it was made with, which the clearing does not reach.
func TestFSMKeepsTheGlobalItStartedWith(t *testing.T) {
	g := &oc.Global{Config: oc.GlobalConfig{As: 65001, RouterId: netip.MustParseAddr("10.0.0.1")}}
	fsm := newFSM(g, &oc.Neighbor{}, bgp.BGP_FSM_IDLE, slog.Default())
	*g = oc.Global{} // what StopBgp does
	require.Equal(t, netip.MustParseAddr("10.0.0.1"), fsm.gConf.Config.RouterId)
	require.Equal(t, uint32(65001), fsm.gConf.Config.As)
}
