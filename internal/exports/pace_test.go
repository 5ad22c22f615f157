package exports

import (
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestPacer steps a fake clock through a Service's endpoint counts: the first count
// and the changes to and from zero go out at once, a change within the interval of the
// last one waits for the rest of it, and the count asked for then (the latest) wins.
func TestPacer(t *testing.T) {
	const interval = 5 * time.Second
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at   time.Duration
		want int
		use  int
		wait time.Duration
	}{
		{0, 3, 3, 0},                         // first seen
		{time.Second, 4, 3, 4 * time.Second}, // within the interval: held
		{2 * time.Second, 5, 3, 3 * time.Second},
		{2 * time.Second, 3, 3, 0}, // back to what is out: nothing to hold
		{3 * time.Second, 6, 3, 2 * time.Second},
		{5 * time.Second, 7, 7, 0},         // the interval passed: the latest goes
		{6 * time.Second, 0, 0, 0},         // to zero: at once
		{6500 * time.Millisecond, 2, 2, 0}, // from zero: at once
		{7 * time.Second, 1, 2, 4500 * time.Millisecond},
		{11500 * time.Millisecond, 1, 1, 0},
	}
	p := NewPacer(interval)
	for i, s := range steps {
		now := t0.Add(s.at)
		use, wait := p.Pace(key, s.want, now)
		if use != s.use || wait != s.wait {
			t.Fatalf("step %d at +%s want %d: Pace = %d, %s; want %d, %s", i, s.at, s.want, use, wait, s.use, s.wait)
		}
		p.Sent(key, use, now)
	}
	p.Forget(key)
	if use, wait := p.Pace(key, 9, t0.Add(12*time.Second)); use != 9 || wait != 0 {
		t.Errorf("after Forget: Pace = %d, %s; want 9 at once", use, wait)
	}
	other := types.NamespacedName{Namespace: "shop", Name: "other"}
	if use, wait := p.Pace(other, 2, t0); use != 2 || wait != 0 {
		t.Errorf("another Service: Pace = %d, %s; want 2 at once (paced per Service)", use, wait)
	}
}

// weighted are Rules that give every external IP with the local endpoint count as
// its MED, standing in for weighted ECMP's link bandwidth.
type weighted struct{}

func (weighted) Routes(svc *corev1.Service, _ labels.Set, n int) ([]Route, []Refusal) {
	var out []Route
	for _, addr := range ServiceAddresses(svc, kbgpv1.ServiceExternalIP) {
		out = append(out, Route{Prefix: netip.PrefixFrom(addr, addr.BitLen()), Attributes: &bgp.PathAttributes{MED: ptr.To(uint32(n))}})
	}
	return out, nil
}

// TestIndexPacesCountChanges: with a pacer, an endpoint change within the interval
// leaves the export as it is and lists the Service as held; setting it again after the
// interval sends the latest count. Rules the count does not change are never held.
func TestIndexPacesCountChanges(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	addr := netip.MustParseAddr("10.0.0.1")
	key, svc := externalIP("shop", "web", 1, "203.0.113.10")
	slices := func(n int) []discoveryv1.EndpointSlice {
		s := discoveryv1.EndpointSlice{}
		for i := range n {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{NodeName: ptr.To("worker-1"), Addresses: []string{netip.AddrFrom4([4]byte{10, 244, 1, byte(i)}).String()}})
		}
		return []discoveryv1.EndpointSlice{s}
	}
	medOf := func(ch bgp.ExportChanges) []uint32 {
		var out []uint32
		for _, chs := range ch {
			for _, c := range chs {
				for _, p := range c.Set {
					out = append(out, *p.Attributes.MED)
				}
			}
		}
		return out
	}

	x := New("worker-1")
	x.Pace(NewPacer(WeightInterval), clock)
	x.AddPeer(PeerKey{Name: "tor"}, addr, nil, weighted{})
	if got := medOf(x.SetService(key, svc, slices(1))); len(got) != 1 || got[0] != 1 {
		t.Fatalf("first set: sent %v, want [1]", got)
	}
	now = now.Add(time.Second)
	if got := medOf(x.SetService(key, svc, slices(2))); len(got) != 0 {
		t.Errorf("a change within the interval sent %v, want nothing", got)
	}
	if held := x.Held(); held[key] != WeightInterval-time.Second {
		t.Errorf("held %v, want %s for %s", held, WeightInterval-time.Second, key)
	}
	now = now.Add(WeightInterval)
	if got := medOf(x.SetService(key, svc, slices(3))); len(got) != 1 || got[0] != 3 {
		t.Errorf("after the interval: sent %v, want the latest count [3]", got)
	}
	if held := x.Held(); len(held) != 0 {
		t.Errorf("held %v after the interval, want none", held)
	}

	plain := New("worker-1")
	plain.Pace(NewPacer(WeightInterval), clock)
	plain.AddPeer(PeerKey{Name: "tor"}, addr, nil, &announceAll{})
	plain.SetService(key, svc, slices(1))
	now = now.Add(time.Second)
	plain.SetService(key, svc, slices(2))
	plain.SetService(key, svc, slices(3))
	if held := plain.Held(); len(held) != 0 {
		t.Errorf("rules the count does not change: held %v, want none", held)
	}
}
