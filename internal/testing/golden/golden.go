// Package golden compares test output with golden files, so a reviewer sees exactly
// what code writes. `KBGP_UPDATE_GOLDEN=1 go test ./PKG` rewrites them. It reads an
// environment variable rather than registering a flag, so that no flag is added to
// whatever imports it; it is test tooling, which production cannot import
// (hack/importcheck).
package golden

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// UpdateEnv is the environment variable that, set to 1, rewrites the golden files.
const UpdateEnv = "KBGP_UPDATE_GOLDEN"

// Compare fails t when got differs from the file at path (rewriting it first when
// $KBGP_UPDATE_GOLDEN is 1).
func Compare(t testing.TB, path string, got []byte) {
	t.Helper()
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s=1 go test writes it)", err, UpdateEnv)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-golden +got; %s=1 go test rewrites it):\n%s", path, UpdateEnv, diff)
	}
}
