package cni

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Ebtables is the part of ebtables(8) the plugin uses, on the filter table of the network
// namespace it runs in. Tests substitute an in-memory table.
type Ebtables interface {
	// ChainExists reports whether the user-defined chain exists.
	ChainExists(chain string) (bool, error)
	// NewChain creates a user-defined chain.
	NewChain(chain string) error
	// RuleExists reports whether r is in its chain.
	RuleExists(r Rule) (bool, error)
	// AddRule inserts r at the top of its chain or appends it, as r.Position says.
	AddRule(r Rule) error
	// DeleteRule removes r from its chain.
	DeleteRule(r Rule) error
}

// ensureRules creates DedupChain when it is missing and adds each rule that is not there
// yet: check before add, so that running it again changes nothing. The caller holds the
// state lock, so two plugin runs never interleave their checks and adds.
func ensureRules(eb Ebtables, rules []Rule) error {
	ok, err := eb.ChainExists(DedupChain)
	if err != nil {
		return err
	}
	if !ok {
		if err := eb.NewChain(DedupChain); err != nil {
			return err
		}
	}
	for _, r := range rules {
		ok, err := eb.RuleExists(r)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if err := eb.AddRule(r); err != nil {
			return err
		}
	}
	return nil
}

// missingRules are the rules not in place (all of them when DedupChain is missing).
func missingRules(eb Ebtables, rules []Rule) ([]Rule, error) {
	ok, err := eb.ChainExists(DedupChain)
	if err != nil {
		return nil, err
	}
	if !ok {
		return rules, nil
	}
	var missing []Rule
	for _, r := range rules {
		ok, err := eb.RuleExists(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

// deleteRules removes those of rules that are in place.
func deleteRules(eb Ebtables, rules []Rule) error {
	var errs []error
	for _, r := range rules {
		ok, err := eb.RuleExists(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			errs = append(errs, eb.DeleteRule(r))
		}
	}
	return errors.Join(errs...)
}

// ExecEbtables runs the ebtables command on the filter table. Debian's ebtables is the
// nf_tables one (ebtables-nft 1.8): it has --check (-C is --change-counters there),
// whose exit status is 0 when the rule exists and 1 when it does not.
type ExecEbtables struct {
	// Path is the ebtables binary; found in $PATH, /usr/sbin or /sbin when empty.
	Path string
	// Timeout bounds each call; 30s when zero.
	Timeout time.Duration

	once sync.Once
	path string
	err  error
}

var _ Ebtables = (*ExecEbtables)(nil)

func (e *ExecEbtables) binary() (string, error) {
	e.once.Do(func() {
		if e.Path != "" {
			e.path = e.Path
			return
		}
		for _, p := range []string{"ebtables", "/usr/sbin/ebtables", "/sbin/ebtables"} {
			if found, err := exec.LookPath(p); err == nil {
				e.path = found
				return
			}
		}
		e.err = errors.New("ebtables not found in $PATH, /usr/sbin or /sbin")
	})
	return e.path, e.err
}

// run runs ebtables -t filter args and returns its exit status (0 when it succeeded)
// and its output; err is set when it could not run at all.
func (e *ExecEbtables) run(args ...string) (int, string, error) {
	bin, err := e.binary()
	if err != nil {
		return 0, "", err
	}
	timeout := e.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-t", "filter"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return 0, out.String(), fmt.Errorf("ebtables %s: timed out after %s", strings.Join(args, " "), timeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), nil
	}
	if err != nil {
		return 0, out.String(), fmt.Errorf("ebtables %s: %w", strings.Join(args, " "), err)
	}
	return 0, out.String(), nil
}

// must runs ebtables and fails unless it exits 0.
func (e *ExecEbtables) must(args ...string) error {
	code, out, err := e.run(args...)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("ebtables -t filter %s: exit status %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out))
	}
	return nil
}

// probe runs ebtables for a yes/no question: exit 0 is yes, 1 no, anything else an error.
func (e *ExecEbtables) probe(args ...string) (bool, error) {
	code, out, err := e.run(args...)
	switch {
	case err != nil:
		return false, err
	case code == 0:
		return true, nil
	case code == 1:
		return false, nil
	default:
		return false, fmt.Errorf("ebtables -t filter %s: exit status %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out))
	}
}

// ChainExists lists the chain: exit 0 when it exists, 1 when it does not.
func (e *ExecEbtables) ChainExists(chain string) (bool, error) {
	return e.probe("-L", chain)
}

// NewChain creates chain (ebtables -N).
func (e *ExecEbtables) NewChain(chain string) error {
	return e.must("-N", chain)
}

// RuleExists is ebtables --check.
func (e *ExecEbtables) RuleExists(r Rule) (bool, error) {
	return e.probe(append([]string{"--check", r.Chain}, r.Args...)...)
}

// AddRule is ebtables -I CHAIN 1 or -A CHAIN.
func (e *ExecEbtables) AddRule(r Rule) error {
	if r.Position == Insert {
		return e.must(append([]string{"-I", r.Chain, "1"}, r.Args...)...)
	}
	return e.must(append([]string{"-A", r.Chain}, r.Args...)...)
}

// DeleteRule is ebtables -D.
func (e *ExecEbtables) DeleteRule(r Rule) error {
	return e.must(append([]string{"-D", r.Chain}, r.Args...)...)
}
