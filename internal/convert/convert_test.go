package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kbgp.io/kbgp/internal/testing/golden"
)

// TestPublishedExamples converts the examples Cilium and MetalLB publish in their
// documentation (testdata/in, each file naming its source) and a corpus of the shapes
// people write for their own clusters (testdata/in/real-*.yaml: multi-document files
// with unrelated kinds, `kubectl get -o yaml` Lists, anchors and merge keys, rendered
// templates), and compares the objects and the warnings with golden files
// (testdata/out), so a reviewer reads exactly what a user gets. Regenerate with
// KBGP_UPDATE_GOLDEN=1. test/integration/convert_test.go applies every golden object to a real API
// server.
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
			compareGoldenString(t, filepath.Join("testdata", "out", name+".yaml"), out.String())
			compareGoldenString(t, filepath.Join("testdata", "out", name+".warnings"), w.String())
		})
	}
}

func compareGoldenString(t *testing.T, path, got string) {
	t.Helper()
	golden.Compare(t, path, []byte(got))
}
