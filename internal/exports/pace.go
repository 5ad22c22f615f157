package exports

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// WeightInterval is how often at most a Service's count of ready local endpoints, and
// so the link bandwidth weighted ECMP announces for it, changes on one node: a
// rollout that replaces a Service's pods one by one sends each peer an UPDATE per
// WeightInterval and Service, not one per pod. The count going to or from zero is
// never held back: it announces or withdraws the address.
const WeightInterval = 5 * time.Second

// Pacer holds back changes of a Service's local endpoint count that come sooner than
// its interval after the last change it let through; the last count seen wins once the
// interval has passed (the caller asks again then, see Pace). It keeps no clock: the
// caller passes the time, so it is tested with any. It is not safe for concurrent use.
type Pacer struct {
	interval time.Duration
	last     map[types.NamespacedName]paced
}

// paced is the count a Service was last announced with, and when it changed to it.
type paced struct {
	count int
	at    time.Time
}

// NewPacer returns a pacer that lets one change per Service through per interval.
func NewPacer(interval time.Duration) *Pacer {
	return &Pacer{interval: interval, last: map[types.NamespacedName]paced{}}
}

// Pace returns the count to announce for key at now when want is the current one: want,
// unless the last change is less than the interval ago, want and the last count are
// both non-zero and they differ; then the last count, and how long until want may go
// out (ask again then).
func (p *Pacer) Pace(key types.NamespacedName, want int, now time.Time) (int, time.Duration) {
	l, ok := p.last[key]
	if !ok || l.count == want || l.count == 0 || want == 0 {
		return want, 0
	}
	if wait := l.at.Add(p.interval).Sub(now); wait > 0 {
		return l.count, wait
	}
	return want, 0
}

// Sent records that key is announced with count from now on; the same count again is
// no change and keeps the time of the last one.
func (p *Pacer) Sent(key types.NamespacedName, count int, now time.Time) {
	if l, ok := p.last[key]; ok && l.count == count {
		return
	}
	p.last[key] = paced{count: count, at: now}
}

// Forget drops what is known of a deleted Service.
func (p *Pacer) Forget(key types.NamespacedName) {
	delete(p.last, key)
}
