// Package frr drives a running FRR bgpd through vtysh and decodes its JSON: the one
// driver `kbgp-lab --router=frr` and the end-to-end harness (test/e2e/netlab) share.
// It runs commands and reads tables; starting and stopping bgpd is the caller's.
package frr

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds one vtysh command.
const DefaultTimeout = 30 * time.Second

// VTY is one bgpd's vtysh socket directory (bgpd's --vty_socket).
type VTY struct {
	Dir string
	// Timeout bounds each command; zero is DefaultTimeout.
	Timeout time.Duration
}

// Run runs vtysh with args and returns its output. A "% ..." error line in the
// output is an error too: vtysh exits 0 on many refused commands.
func (v VTY) Run(args ...string) (string, error) {
	timeout := v.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "vtysh", append([]string{"--vty_socket", v.Dir}, args...)...)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	if err != nil {
		return string(out), fmt.Errorf("vtysh %q: %w", strings.Join(args, " "), err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "% ") {
			return string(out), fmt.Errorf("vtysh %q: %s", strings.Join(args, " "), strings.TrimSpace(line))
		}
	}
	return string(out), nil
}

// Command runs one vtysh command.
func (v VTY) Command(cmd string) (string, error) { return v.Run("-c", cmd) }

// JSON runs a command (ending in "json") and decodes its output into out.
func (v VTY) JSON(cmd string, out any) error {
	text, err := v.Command(cmd)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return fmt.Errorf("vtysh %q: decoding JSON: %w: %s", cmd, err, truncate(text, 2000))
	}
	return nil
}

// Configure applies lines in "configure terminal" mode, e.g.
// Configure("router bgp 65010", "neighbor 10.0.0.2 shutdown").
func (v VTY) Configure(lines ...string) error {
	args := []string{"-c", "configure terminal"}
	for _, l := range lines {
		args = append(args, "-c", l)
	}
	out, err := v.Run(args...)
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(out))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "...(truncated)"
}
