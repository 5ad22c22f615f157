package gobgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// bmpPolicies maps kbgp's monitoring choice to GoBGP's.
var bmpPolicies = map[bgp.BMPMonitoring]api.AddBmpRequest_MonitoringPolicy{
	bgp.BMPPrePolicy:  api.AddBmpRequest_MONITORING_POLICY_PRE,
	bgp.BMPPostPolicy: api.AddBmpRequest_MONITORING_POLICY_POST,
	bgp.BMPLocalRIB:   api.AddBmpRequest_MONITORING_POLICY_LOCAL,
	bgp.BMPAll:        api.AddBmpRequest_MONITORING_POLICY_ALL,
}

// SetBMP implements bgp.Router. GoBGP reports a station's address and port only, so
// the router keeps what it configured to tell a changed collector from an unchanged one.
func (r *router) SetBMP(ctx context.Context, collectors []bgp.BMPCollector) error {
	r.bmpMu.Lock()
	defer r.bmpMu.Unlock()
	for _, c := range r.bmp {
		if slices.Contains(collectors, c) {
			continue
		}
		if err := r.srv.DeleteBmp(ctx, &api.DeleteBmpRequest{Address: c.Address.String(), Port: uint32(c.Port)}); err != nil {
			return fmt.Errorf("drop BMP collector %s: %w", bmpName(c), err)
		}
		r.bmp = slices.DeleteFunc(r.bmp, func(x bgp.BMPCollector) bool { return x == c })
	}
	for _, c := range collectors {
		if slices.Contains(r.bmp, c) {
			continue
		}
		policy, ok := bmpPolicies[c.Monitoring]
		if !ok {
			policy = api.AddBmpRequest_MONITORING_POLICY_PRE
		}
		if err := r.srv.AddBmp(ctx, &api.AddBmpRequest{Address: c.Address.String(), Port: uint32(c.Port), Policy: policy,
			StatisticsTimeout: int32(c.StatisticsInterval.Seconds()), SysName: "kbgp " + r.key.String()}); err != nil {
			return fmt.Errorf("add BMP collector %s: %w", bmpName(c), err)
		}
		r.bmp = append(r.bmp, c)
	}
	return nil
}

// BMP implements bgp.Router: a station is up when it came up after it last went down.
func (r *router) BMP(ctx context.Context) ([]bgp.BMPStatus, error) {
	var out []bgp.BMPStatus
	err := r.srv.ListBmp(ctx, &api.ListBmpRequest{}, func(st *api.ListBmpResponse_BmpStation) {
		addr, err := netip.ParseAddr(st.GetConf().GetAddress())
		if err != nil {
			return
		}
		up, down := st.GetState().GetUptime().AsTime(), st.GetState().GetDowntime().AsTime()
		s := bgp.BMPStatus{Address: addr, Port: uint16(st.GetConf().GetPort()), Up: st.GetState().GetUptime() != nil && up.After(down)}
		switch {
		case s.Up:
			s.Since = up
		case st.GetState().GetDowntime() != nil:
			s.Since = down
		}
		out = append(out, s)
	})
	return out, err
}

func bmpName(c bgp.BMPCollector) string {
	return fmt.Sprintf("%s port %d", c.Address, c.Port)
}
