package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlagsOfTheContract: the flags docs/lab.md and test/lab use.
func TestFlagsOfTheContract(t *testing.T) {
	cmd := newLabCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"--once", "--router", "--timeout", "--dir"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("kbgp-lab --help lacks %s:\n%s", f, out.String())
		}
	}
}
