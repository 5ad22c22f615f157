// Command importcheck fails when a package of the module crosses one of the import
// boundaries of docs/development.md: GoBGP only in internal/bgp/gobgp (and bench), api/
// only on apimachinery, the pure packages without a Kubernetes client, the agent and
// the operator apart, and a kubectl plugin without the controller stack or the agent's internals. `make lint`
// runs it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	pkgs, err := listPackages()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		os.Exit(2)
	}
	if problems := check(pkgs); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "importcheck:", p)
		}
		os.Exit(1)
	}
}

// listPackages lists every package of the module, bench included (build tag bench).
func listPackages() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-tags", "bench", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}
