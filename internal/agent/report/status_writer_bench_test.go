package report

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// BenchmarkRefusedServices is the review's fifth claim, agent part: with n refused
// Services, what one more Service event costs the agent's single worker ("event", the
// path of a Service event: flat in n) and what a full build's refusal list costs
// ("full", linear in n; before this change it was also the path of every Service
// event, and quadratic).
func BenchmarkRefusedServices(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		refused := make([]kbgpv1.FailedResource, n)
		for i := range refused {
			refused[i] = kbgpv1.FailedResource{Kind: "Service", Name: fmt.Sprintf("shop/s-%05d", i),
				Message: "ExternalIP 198.51.100.77 is outside the externalIPPrefixes of BGPAdvertisement public: not announced"}
		}
		other := append([]kbgpv1.FailedResource(nil), refused...)
		other[n/2].Message = "changed"
		b.Run(fmt.Sprintf("event/n=%d", n), func(b *testing.B) {
			w := NewStatusWriter(StatusConfig{NodeName: "bench", Interval: time.Second, Logger: slog.New(slog.DiscardHandler)})
			w.SetRefused(refused)
			for i := 0; b.Loop(); i++ {
				msg := refused[i%n].Message
				if i%2 == 0 {
					msg = "changed"
				}
				w.SetRefusedOf(refused[i%n].Name, msg)
			}
		})
		b.Run(fmt.Sprintf("full/n=%d", n), func(b *testing.B) {
			w := NewStatusWriter(StatusConfig{NodeName: "bench", Interval: time.Second, Logger: slog.New(slog.DiscardHandler)})
			lists := [][]kbgpv1.FailedResource{refused, other}
			for i := 0; b.Loop(); i++ {
				w.SetRefused(lists[i%2])
			}
		})
	}
}
