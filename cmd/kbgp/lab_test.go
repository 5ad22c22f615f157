package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabRunsKbgpLab: `kbgp lab ARGS` runs the kbgp-lab beside the kbgp binary with the
// same arguments (flags included, unparsed), else the one on PATH.
func TestLabRunsKbgpLab(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	lab := filepath.Join(dir, labBinary)
	if err := os.WriteFile(lab, []byte("#!/bin/sh\necho \"$@\" > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noPath := func(string) (string, error) { return "", errors.New("not on PATH") }
	if got := findLab(filepath.Join(dir, "kbgp"), noPath); got != lab {
		t.Fatalf("findLab beside kbgp = %q, want %q", got, lab)
	}
	onPath := func(string) (string, error) { return "/somewhere/kbgp-lab", nil }
	if got := findLab(filepath.Join(t.TempDir(), "kbgp"), onPath); got != "/somewhere/kbgp-lab" {
		t.Fatalf("findLab from PATH = %q", got)
	}

	if !newLabCommand().DisableFlagParsing {
		t.Error("kbgp lab parses flags itself; kbgp-lab's must pass through")
	}
	if err := runLab(lab, []string{"--once", "--router", "frr"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "--once --router frr" {
		t.Errorf("kbgp-lab got %q, want the arguments as given", got)
	}
	if err := runLab(filepath.Join(dir, "missing"), nil); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("a missing kbgp-lab: %v, want an error saying how to build it", err)
	}
}
