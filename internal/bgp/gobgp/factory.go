package gobgp

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
)

// Factory starts GoBGP speakers.
type Factory struct {
	// Logger receives GoBGP's own logs (at warning level and above) and the adapter's.
	Logger *slog.Logger
	// Routes receives what peers send in the families they import; nil: nothing is
	// reported.
	Routes bgp.RouteSink
}

var (
	_ bgp.RouterFactory   = Factory{}
	_ bgp.RouteSinkSetter = Factory{}
)

// WithRouteSink returns the factory with its speakers reporting to sink.
func (f Factory) WithRouteSink(sink bgp.RouteSink) bgp.RouterFactory {
	f.Routes = sink
	return f
}

// NewRouter starts a GoBGP server for one instance. It listens only when g.ListenPort
// is set; otherwise GoBGP's ListenPort is -1 and the speaker only dials out.
func (f Factory) NewRouter(ctx context.Context, key bgp.InstanceKey, g bgp.Global, notify func()) (bgp.Router, error) {
	logger := f.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("instance", key.String())
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	gobgpLogger := slog.New(warnOnly{logger.Handler()}).With("component", "gobgp")
	// Paths are deleted by value (router.deletePaths), so GoBGP keeps no UUID per path.
	srv := server.NewBgpServer(server.LoggerOption(gobgpLogger, level), server.NoPathUUIDsOption())
	go srv.Serve()

	listenPort := int32(-1)
	if g.ListenPort != 0 {
		listenPort = int32(g.ListenPort)
	}
	global := &api.Global{
		Asn:          g.ASN,
		RouterId:     g.RouterID.String(),
		ListenPort:   listenPort,
		BindToDevice: g.BindDevice,
	}
	for _, a := range g.ListenAddresses {
		global.ListenAddresses = append(global.ListenAddresses, a.String())
	}
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: global}); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("start speaker %s: %w", key, err)
	}
	r := newRouter(srv, key, logger, notify)
	r.restarting = g.Restarting
	if f.Routes != nil {
		r.feed = &routeFeed{sink: f.Routes, localAS: g.ASN, routerID: g.RouterID, importing: map[netip.Addr]map[bgp.Family]bgp.Import{}}
	}
	if err := r.installPolicies(ctx); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("speaker %s: %w", key, err)
	}
	if err := r.watch(); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("speaker %s: %w", key, err)
	}
	return r, nil
}
