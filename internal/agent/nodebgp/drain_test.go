package nodebgp

import (
	"testing"
	"time"
)

func TestDrainClock(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var d drainClock
	if got := d.remaining(t0); got != 0 {
		t.Fatalf("never drained: %s", got)
	}
	d.observe(30*time.Second, t0)
	d.observe(30*time.Second, t0.Add(10*time.Second)) // a later build keeps the start
	if got := d.remaining(t0.Add(20 * time.Second)); got != 10*time.Second {
		t.Errorf("20 s into a 30 s wait: %s left, want 10s", got)
	}
	d.observe(60*time.Second, t0.Add(25*time.Second)) // a longer wait counts from the start
	if got := d.remaining(t0.Add(40 * time.Second)); got != 20*time.Second {
		t.Errorf("40 s into a 60 s wait: %s left, want 20s", got)
	}
	if got := d.remaining(t0.Add(2 * time.Minute)); got != 0 {
		t.Errorf("past the wait: %s left", got)
	}
	d.observe(0, t0.Add(3*time.Minute)) // uncordoned
	d.observe(30*time.Second, t0.Add(4*time.Minute))
	if got := d.remaining(t0.Add(4*time.Minute + 5*time.Second)); got != 25*time.Second {
		t.Errorf("a new drain counts from its own start: %s left, want 25s", got)
	}
}
