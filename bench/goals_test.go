//go:build bench

package bench

import (
	"fmt"
	"testing"
)

// reportGoal prints one goal of the design's performance document as PASS or FAIL with
// what was measured, on a line of its own starting "GOAL", so that a run's verdicts are
// one grep away (`go test -tags bench ... | grep GOAL`) and a regression shows without
// reading the tables. Report-only: a benchmark never fails on a goal, because a time
// on a shared machine is a measurement, not an assertion.
func reportGoal(t testing.TB, bench, goal string, met bool, measured string, args ...any) {
	t.Helper()
	verdict := "FAIL"
	if met {
		verdict = "PASS"
	}
	t.Logf("GOAL %s %s: %s — measured %s", verdict, bench, goal, fmt.Sprintf(measured, args...))
}
