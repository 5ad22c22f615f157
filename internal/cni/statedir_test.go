package cni

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAddAfterTheGatewayChangedRemovesTheOldGatewaysRules: the node's IPv4 pod CIDR
// changed, so the bridge's IPv4 gateway did: the superseded gateway's rules and record
// go, the IPv6 gateway's stay.
func TestAddAfterTheGatewayChangedRemovesTheOldGatewaysRules(t *testing.T) {
	tp := newTestPlugin(t)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", dualStack))); err != nil {
		t.Fatal(err)
	}
	moved := strings.NewReplacer("10.244.1.130/24", "10.244.2.130/24", "10.244.1.129", "10.244.2.129").Replace(dualStack)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", moved))); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range wantDualStackRules {
		want = append(want, strings.NewReplacer("10.244.1.129", "10.244.2.129", "10.244.1.0/24", "10.244.2.0/24").Replace(r))
	}
	// The order of the rules that stayed and the ones added is not the point here.
	if diff := cmp.Diff(want, tp.eb.list(DedupChain), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("KBGP-DEDUP (-want +got):\n%s", diff)
	}
	gws, err := ReadGateways(tp.stateDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gws {
		got = append(got, g.Gateway.String())
	}
	if diff := cmp.Diff([]string{"10.244.2.129", "2001:db8:9::8000"}, got); diff != "" {
		t.Errorf("gateway records (-want +got):\n%s", diff)
	}
}

// TestAddRefusesAnUnsafeStateDir: the plugin runs as root with a state directory the
// conflist names; one reached through a symlink, writable by others or owned by
// another user could make it write where it should not, so ADD refuses it and writes
// nothing.
func TestAddRefusesAnUnsafeStateDir(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(base, "foreign")
	if err := os.Mkdir(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{
		"a symlink":              link,
		"under a symlink":        filepath.Join(link, "cni"),
		"writable by others":     open,
		"owned by another user":  foreign,
		"under a dir of another": filepath.Join(foreign, "cni"),
		"with .. in it":          real + "/../real",
	} {
		t.Run(name, func(t *testing.T) {
			tp := newTestPlugin(t)
			tp.stateDir = dir
			if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", dualStack))); err == nil {
				t.Errorf("ADD with state dir %s succeeded", dir)
			}
			if len(tp.eb.list(DedupChain)) != 0 {
				t.Errorf("rules added: %v", tp.eb.list(DedupChain))
			}
		})
	}
	if entries, _ := os.ReadDir(real); len(entries) != 0 {
		t.Errorf("written through the symlink: %v", entries)
	}
}
