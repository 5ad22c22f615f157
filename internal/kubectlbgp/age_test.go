package kubectlbgp

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSince(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *metav1.Time
		want string
	}{
		{"unset", nil, "-"},
		{"zero", &metav1.Time{}, "-"},
		{"seconds", ago(42 * time.Second), "42s"},
		{"minutes and seconds", ago(5*time.Minute + 3*time.Second), "5m3s"},
		{"minutes", ago(45 * time.Minute), "45m"},
		{"hours and minutes", ago(3*time.Hour + 10*time.Minute), "3h10m"},
		{"days", ago(48 * time.Hour), "2d"},
		{"days and hours", ago(50 * time.Hour), "2d2h"},
		{"clock skew within tolerance", ago(-time.Second), "0s"},
		{"in the future", ago(-time.Hour), "<invalid>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := since(tc.t, now); got != tc.want {
				t.Errorf("since = %q, want %q", got, tc.want)
			}
		})
	}
}
