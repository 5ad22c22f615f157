package intent_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/testing/golden"
)

// TestScenarios runs every testdata/scenarios/*.txtar: its input.yaml holds the
// Kubernetes objects one node's agent reads, its want file what Build makes of them
// (renderResult). `KBGP_UPDATE_GOLDEN=1 go test ./internal/intent` rewrites the want
// files; review the diff.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runScenario(t, file)
		})
	}
}

func runScenario(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(ar.Comment)) == 0 {
		t.Errorf("%s: say at the top what the scenario shows", file)
	}
	input, want := section(t, ar, "input.yaml"), section(t, ar, "want")
	in, err := scenarioInput(input.Data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	got := renderResult(intent.Build(in))
	if os.Getenv(golden.UpdateEnv) == "1" {
		want.Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// Compared line by line, so that a failure shows the lines that differ.
	if diff := gocmp.Diff(strings.Split(string(want.Data), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("%s: want differs (-want +got; %s=1 go test rewrites it):\n%s", file, golden.UpdateEnv, diff)
	}
}

// section returns the archive's file called name.
func section(t *testing.T, ar *txtar.Archive, name string) *txtar.File {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			return &ar.Files[i]
		}
	}
	t.Fatalf("no %q section", name)
	return nil
}
