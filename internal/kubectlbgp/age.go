package kubectlbgp

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// since renders how long ago t was the way kubectl renders AGE ("5m3s", "2d"), so the
// plugin's columns read like the rest of kubectl. now is a parameter so that output is
// a pure function of its input. An unset time is "-".
func since(t *metav1.Time, now time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}
