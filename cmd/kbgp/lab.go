package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
)

// labBinary is the program `kbgp lab` runs: the lab links envtest and the test routers,
// which the image's binary must not, so it is the kbgp-lab binary beside this one
// (make build puts both in bin/), else the one on PATH.
const labBinary = "kbgp-lab"

// newLabCommand keeps `kbgp lab` as the command line names it: it runs kbgp-lab with
// the same arguments and ends with its exit status.
func newLabCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "lab [kbgp-lab flags]",
		Short:              "Run the embedded default on this machine (runs " + labBinary + ")",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			self, _ := os.Executable()
			return runLab(findLab(self, exec.LookPath), args)
		},
	}
}

// findLab returns kbgp-lab beside self if it is there, else what lookPath finds, else
// the bare name (so the error names what is missing).
func findLab(self string, lookPath func(string) (string, error)) string {
	if self != "" {
		beside := filepath.Join(filepath.Dir(self), labBinary)
		if info, err := os.Stat(beside); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return beside
		}
	}
	if p, err := lookPath(labBinary); err == nil {
		return p
	}
	return labBinary
}

// runLab runs path with args on this process's standard streams; its exit status
// becomes this one's.
func runLab(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("run %s (build it with make build): %w", path, err)
	}
	return nil
}
