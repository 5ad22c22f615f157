package exports

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"kbgp.io/kbgp/internal/bgp"
)

// BenchmarkSetServiceAddresses sets one Service with n external IPs into an index with
// one peer, then deletes it: the cost of a Service as its address count grows (B1's
// Services have 1,000 each). Linear work per address reads as a constant time per
// address across the sizes. "set" is an event's SetService, which works out the
// changes; "load" is a full build's LoadService, which does not.
func BenchmarkSetServiceAddresses(b *testing.B) {
	set := map[string]func(x *Index, key types.NamespacedName, svc *corev1.Service){
		"set":  func(x *Index, key types.NamespacedName, svc *corev1.Service) { x.SetService(key, svc, nil) },
		"load": func(x *Index, key types.NamespacedName, svc *corev1.Service) { x.LoadService(key, svc, nil) },
	}
	for _, how := range []string{"set", "load"} {
		for _, n := range []int{100, 1000, 4000} {
			b.Run(fmt.Sprintf("%s/addresses=%d", how, n), func(b *testing.B) {
				benchmarkSetService(b, n, set[how])
			})
		}
	}
}

// benchmarkSetService times set, then a deletion, of a Service with n external IPs in
// an index with one peer.
func benchmarkSetService(b *testing.B, n int, set func(x *Index, key types.NamespacedName, svc *corev1.Service)) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "bulk", CreationTimestamp: metav1.Unix(1, 0)},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP},
	}
	base := netip.MustParseAddr("10.128.0.0")
	for addr := range n {
		a := base.As4()
		a[2], a[3] = byte(addr>>8), byte(addr)
		svc.Spec.ExternalIPs = append(svc.Spec.ExternalIPs, netip.AddrFrom4(a).String())
	}
	key := types.NamespacedName{Namespace: "bench", Name: "bulk"}
	x := New("worker-1")
	x.AddPeer(PeerKey{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: "tor"}, netip.MustParseAddr("10.0.0.1"), nil, &announceAll{})
	b.ResetTimer()
	cpu0 := processCPU(b)
	for range b.N {
		set(x, key, svc)
		set(x, key, nil)
	}
	b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(b.N*n), "cpu-ns/address")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
