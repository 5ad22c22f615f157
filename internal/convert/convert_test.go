package convert

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/out/")

// TestPublishedExamples converts the examples Cilium and MetalLB publish in their
// documentation (testdata/in, each file naming its source) and compares the objects
// and the warnings with golden files (testdata/out), so a reviewer reads exactly what
// a user gets. Regenerate with -update. test/integration/convert_test.go applies every
// golden object to a real API server.
func TestPublishedExamples(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "in", "*.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/in: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			objs, warnings, err := Convert(input)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := Write(&out, objs); err != nil {
				t.Fatal(err)
			}
			var w strings.Builder
			for _, warning := range warnings {
				w.WriteString(warning.String() + "\n")
			}
			compareGolden(t, filepath.Join("testdata", "out", name+".yaml"), out.String())
			compareGolden(t, filepath.Join("testdata", "out", name+".warnings"), w.String())
		})
	}
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/convert -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-golden +got):\n%s", path, diff)
	}
}
