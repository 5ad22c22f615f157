package intent

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

func TestBMPCollectors(t *testing.T) {
	got := bmpCollectors([]kbgpv1.BMPCollector{
		{Address: "10.0.0.50"},
		{Address: "2001:db8::50", Port: ptr.To[int32](1790), RouteMonitoring: kbgpv1.BMPLocalRIB, StatisticsIntervalSeconds: ptr.To[int32](60)},
		{Address: "::ffff:10.0.0.51", RouteMonitoring: kbgpv1.BMPAll},
	})
	want := []bgp.BMPCollector{
		{Address: netip.MustParseAddr("10.0.0.50"), Port: 11019, Monitoring: bgp.BMPPrePolicy},
		{Address: netip.MustParseAddr("2001:db8::50"), Port: 1790, Monitoring: bgp.BMPLocalRIB, StatisticsInterval: time.Minute},
		{Address: netip.MustParseAddr("10.0.0.51"), Port: 11019, Monitoring: bgp.BMPAll},
	}
	if !slices.Equal(got, want) {
		t.Errorf("bmpCollectors:\n got %v\nwant %v", got, want)
	}
}
