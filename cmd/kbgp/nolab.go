//go:build nolab

package main

import "github.com/spf13/cobra"

// labCommands is empty in the image's build (-tags nolab): the lab links envtest,
// whose package init creates a directory under $HOME/.cache or $TMPDIR and panics
// when it cannot, as on the agent's and operator's read-only root filesystem.
func labCommands() []*cobra.Command { return nil }
