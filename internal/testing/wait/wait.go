// Package wait polls a test's condition until it holds: the one Eventually of the
// in-process tests (the e2e tests use netlab.WaitFor, which also reports why).
package wait

import (
	"testing"
	"time"
)

// Eventually polls cond every 50 ms until it holds, and fails the test when timeout
// passes first.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
