//go:build bench

package bench

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// bulkServices is how many Services carry the bulk routes of B1–B3 as external IPs:
// few, so that per-Service overhead does not hide per-route cost, and well inside
// envtest's /24 ClusterIP range.
const bulkServices = 100

// bulkStart is the first bulk address: the /32s of B1–B3 come from 10.128.0.0/9, which
// holds 8M of them (1M is the design's ceiling) and is on no lab link.
var bulkStart = netip.MustParseAddr("10.128.0.1")

// hostAddrs is n consecutive addresses from first.
func hostAddrs(first netip.Addr, n int) []netip.Addr {
	out := make([]netip.Addr, n)
	a := first
	for i := range out {
		out[i] = a
		a = a.Next()
	}
	return out
}

// createExternalIPServices creates one Service per chunk of perService addresses,
// named prefix-NNN, with the chunk as spec.externalIPs, four in parallel.
func createExternalIPServices(t *testing.T, c client.Client, prefix string, addrs []netip.Addr, perService int) {
	t.Helper()
	// A Service with more addresses than the advertisement's maxAddressesPerService is
	// refused (not announced): past 409,600 routes the table takes more Services.
	perService = min(perService, benchMaxAddressesPerService)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	errs := make(chan error, len(addrs)/perService+1)
	for i := 0; i*perService < len(addrs); i++ {
		chunk := addrs[i*perService : min(len(addrs), (i+1)*perService)]
		ips := make([]string, len(chunk))
		for j, a := range chunk {
			ips[j] = a.String()
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%03d", prefix, i), Namespace: "default"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, ExternalIPs: ips},
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := c.Create(context.Background(), svc); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// birdStaticConfig is a BIRD `protocol static` holding addrs as blackhole /32s: the
// bulk table of the BIRD baseline.
func birdStaticConfig(addrs []netip.Addr) string {
	var b strings.Builder
	b.Grow(len(addrs) * 40)
	b.WriteString("protocol static bulk {\n\tipv4;\n")
	for _, a := range addrs {
		fmt.Fprintf(&b, "\troute %s/32 blackhole;\n", a)
	}
	b.WriteString("}\n")
	return b.String()
}
