package intent

import (
	"net/netip"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// defaultBMPPort is the collector port when none is given (GoBGP's and OpenBMP's).
const defaultBMPPort = 11019

// bmpMonitoring maps the API's route monitoring names to the speaker's.
var bmpMonitoring = map[kbgpv1.BMPRouteMonitoring]bgp.BMPMonitoring{
	kbgpv1.BMPPrePolicy:  bgp.BMPPrePolicy,
	kbgpv1.BMPPostPolicy: bgp.BMPPostPolicy,
	kbgpv1.BMPLocalRIB:   bgp.BMPLocalRIB,
	kbgpv1.BMPAll:        bgp.BMPAll,
}

// bmpCollectors translates an instance's BMP collectors, in the order given. The
// schema has validated every field; an address that does not parse is skipped.
func bmpCollectors(in []kbgpv1.BMPCollector) []bgp.BMPCollector {
	var out []bgp.BMPCollector
	for _, c := range in {
		addr, err := netip.ParseAddr(string(c.Address))
		if err != nil {
			continue
		}
		bc := bgp.BMPCollector{Address: addr.Unmap(), Port: defaultBMPPort, Monitoring: bgp.BMPPrePolicy}
		if c.Port != nil {
			bc.Port = uint16(*c.Port)
		}
		if m, ok := bmpMonitoring[c.RouteMonitoring]; ok {
			bc.Monitoring = m
		}
		if c.StatisticsIntervalSeconds != nil {
			bc.StatisticsInterval = time.Duration(*c.StatisticsIntervalSeconds) * time.Second
		}
		out = append(out, bc)
	}
	return out
}
