package cni

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/google/go-cmp/cmp"
)

func readFile(dir, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, gatewaysDir, name))
}

// fakeEbtables is an in-memory filter table. Its check and add are deliberately not
// atomic together (like two ebtables processes), so only the plugin's lock keeps
// concurrent runs from adding a rule twice.
type fakeEbtables struct {
	mu     sync.Mutex
	chains map[string][]string // chain -> rule args, in order
	calls  int
}

func newFakeEbtables() *fakeEbtables {
	return &fakeEbtables{chains: map[string][]string{OutputChain: nil}}
}

func (f *fakeEbtables) ChainExists(chain string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	_, ok := f.chains[chain]
	return ok, nil
}

func (f *fakeEbtables) NewChain(chain string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.chains[chain]; ok {
		return fmt.Errorf("chain %s already exists", chain)
	}
	f.chains[chain] = nil
	return nil
}

func (f *fakeEbtables) RuleExists(r Rule) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.chains[r.Chain], strings.Join(r.Args, " ")), nil
}

func (f *fakeEbtables) AddRule(r Rule) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	rules, ok := f.chains[r.Chain]
	if !ok {
		return fmt.Errorf("no chain %s", r.Chain)
	}
	s := strings.Join(r.Args, " ")
	if r.Position == Insert {
		f.chains[r.Chain] = append([]string{s}, rules...)
	} else {
		f.chains[r.Chain] = append(rules, s)
	}
	return nil
}

func (f *fakeEbtables) DeleteRule(r Rule) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := strings.Join(r.Args, " ")
	i := slices.Index(f.chains[r.Chain], s)
	if i < 0 {
		return fmt.Errorf("no rule %s", r)
	}
	f.chains[r.Chain] = slices.Delete(f.chains[r.Chain], i, i+1)
	return nil
}

func (f *fakeEbtables) list(chain string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.chains[chain])
}

type testPlugin struct {
	*Plugin
	eb       *fakeEbtables
	stateDir string
	stdout   *bytes.Buffer
	stderr   *bytes.Buffer
	mac      string
}

func newTestPlugin(t *testing.T) *testPlugin {
	tp := &testPlugin{eb: newFakeEbtables(), stateDir: t.TempDir(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, mac: testMAC}
	tp.Plugin = &Plugin{
		Ebtables: tp.eb,
		BridgeMAC: func(name string) (net.HardwareAddr, error) {
			if name != "cbr0" {
				return nil, fmt.Errorf("Link not found")
			}
			return net.ParseMAC(tp.mac)
		},
		Stdout: tp.stdout,
		Stderr: tp.stderr,
	}
	return tp
}

// stdin is the plugin's conflist entry as libcni builds it, with prevResult.
func (tp *testPlugin) stdin(t *testing.T, cniVersion, prevResult string) []byte {
	t.Helper()
	conf := map[string]any{"cniVersion": cniVersion, "name": "kbgp", "type": PluginType, "stateDir": tp.stateDir}
	if prevResult != "" {
		var prev map[string]any
		if err := json.Unmarshal([]byte(prevResult), &prev); err != nil {
			t.Fatal(err)
		}
		conf["prevResult"] = prev
	}
	b, err := json.Marshal(conf)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cmdArgs(stdin []byte) *skel.CmdArgs {
	return &skel.CmdArgs{ContainerID: "c1", Netns: "/run/netns/pod", IfName: "eth0", StdinData: stdin}
}

// dualStack is the bridge plugin's 1.0.0 result for a dual-stack pod whose gateways are
// not the subnets' first addresses.
const dualStack = `{
  "cniVersion": "1.0.0",
  "interfaces": [
    {"name": "cbr0", "mac": "02:42:0a:f4:01:81"},
    {"name": "veth5a1b2c3d", "mac": "7a:aa:bb:cc:dd:01"},
    {"name": "eth0", "mac": "0a:58:0a:f4:01:82", "sandbox": "/run/netns/pod"}
  ],
  "ips": [
    {"interface": 2, "address": "10.244.1.130/24", "gateway": "10.244.1.129"},
    {"interface": 2, "address": "2001:db8:9::8001/64", "gateway": "2001:db8:9::8000"}
  ],
  "routes": [{"dst": "0.0.0.0/0"}, {"dst": "::/0"}]
}`

var wantDualStackRules = []string{
	"-p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::8000 -j ACCEPT",
	"-p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.1.129 -j ACCEPT",
	"-p IPv4 -s 02:42:0a:f4:01:81 -o veth+ --ip-src 10.244.1.0/24 -j DROP",
	"-p IPv6 -s 02:42:0a:f4:01:81 -o veth+ --ip6-src 2001:db8:9::/64 -j DROP",
}

func jsonEqual(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("output is not JSON: %v: %q", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("printed result (-prevResult +got):\n%s", diff)
	}
}

func TestAddEnsuresRulesRecordsAndReturnsResultUnchanged(t *testing.T) {
	tp := newTestPlugin(t)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", dualStack))); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, dualStack, tp.stdout.String())
	if diff := cmp.Diff(wantDualStackRules, tp.eb.list(DedupChain)); diff != "" {
		t.Errorf("KBGP-DEDUP (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-j KBGP-DEDUP"}, tp.eb.list(OutputChain)); diff != "" {
		t.Errorf("OUTPUT (-want +got):\n%s", diff)
	}
	got, err := ReadGateways(tp.stateDir)
	if err != nil {
		t.Fatal(err)
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, fmt.Sprintf("%s %s %s %s", g.Gateway, g.Subnet, g.Bridge, g.BridgeMAC))
	}
	if diff := cmp.Diff([]string{
		"10.244.1.129 10.244.1.0/24 cbr0 02:42:0a:f4:01:81",
		"2001:db8:9::8000 2001:db8:9::/64 cbr0 02:42:0a:f4:01:81",
	}, gotS); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	// Idempotent: a second pod's ADD adds nothing.
	tp.stdout.Reset()
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", dualStack))); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantDualStackRules, tp.eb.list(DedupChain)); diff != "" {
		t.Errorf("KBGP-DEDUP after a second ADD (-want +got):\n%s", diff)
	}
	if n := len(tp.eb.list(OutputChain)); n != 1 {
		t.Errorf("OUTPUT has %d rules after a second ADD, want 1", n)
	}
	if err := tp.Check(cmdArgs(tp.stdin(t, "1.0.0", dualStack))); err != nil {
		t.Errorf("CHECK: %v", err)
	}
}

func TestAddConcurrentRunsAddEachRuleOnce(t *testing.T) {
	tp := newTestPlugin(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		// Each run is its own Plugin, as each is its own process; they share the table
		// and the state dir.
		p := *tp.Plugin
		p.Stdout = &bytes.Buffer{}
		wg.Go(func() { errs <- p.Add(cmdArgs(tp.stdin(t, "1.0.0", dualStack))) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(wantDualStackRules, tp.eb.list(DedupChain)); diff != "" {
		t.Errorf("KBGP-DEDUP after concurrent ADDs (-want +got):\n%s", diff)
	}
	if n := len(tp.eb.list(OutputChain)); n != 1 {
		t.Errorf("OUTPUT has %d rules, want 1", n)
	}
}

func TestAddOlderSpecVersionsAndPrintsInTheConfigVersion(t *testing.T) {
	// A 0.4.0 result (ips carry "version") comes back in 0.4.0 form.
	prev := `{
  "cniVersion": "0.4.0",
  "interfaces": [{"name": "cbr0", "mac": "02:42:0a:f4:01:81"}, {"name": "eth0", "sandbox": "/run/netns/pod"}],
  "ips": [{"version": "4", "interface": 1, "address": "10.244.1.130/24", "gateway": "10.244.1.129"}],
  "dns": {}
}`
	for _, v := range []string{"0.3.0", "0.3.1", "0.4.0"} {
		t.Run(v, func(t *testing.T) {
			tp := newTestPlugin(t)
			if err := tp.Add(cmdArgs(tp.stdin(t, v, strings.Replace(prev, "0.4.0", v, 1)))); err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, strings.Replace(prev, "0.4.0", v, 1), tp.stdout.String())
			if n := len(tp.eb.list(DedupChain)); n != 2 {
				t.Errorf("%d rules, want 2: %q", n, tp.eb.list(DedupChain))
			}
		})
	}
}

func TestSupportedVersions(t *testing.T) {
	want := []string{"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"}
	if diff := cmp.Diff(want, SupportedVersions.SupportedVersions()); diff != "" {
		t.Errorf("supported versions (-want +got):\n%s", diff)
	}
}

func TestAddWithoutGatewayAddsNoRuleForThatFamily(t *testing.T) {
	tp := newTestPlugin(t)
	prev := strings.Replace(dualStack, `, "gateway": "10.244.1.129"`, "", 1)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", prev))); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, prev, tp.stdout.String())
	for _, r := range tp.eb.list(DedupChain) {
		if strings.Contains(r, "IPv4") {
			t.Errorf("an IPv4 rule without an IPv4 gateway: %s", r)
		}
	}
	if n := len(tp.eb.list(DedupChain)); n != 2 {
		t.Errorf("%d rules, want the 2 IPv6 ones: %q", n, tp.eb.list(DedupChain))
	}
	if !strings.Contains(tp.stderr.String(), "IPv4, 10.244.1.0/24) has no gateway") {
		t.Errorf("no note on stderr: %q", tp.stderr.String())
	}
}

func TestAddRequiresPrevResultAndTheBridge(t *testing.T) {
	tp := newTestPlugin(t)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", ""))); err == nil || !strings.Contains(err.Error(), "prevResult") {
		t.Errorf("ADD without prevResult: %v", err)
	}
	if err := tp.Check(cmdArgs(tp.stdin(t, "1.0.0", ""))); err == nil || !strings.Contains(err.Error(), "prevResult") {
		t.Errorf("CHECK without prevResult: %v", err)
	}
	other := strings.Replace(dualStack, `"name": "cbr0"`, `"name": "br-gone"`, 1)
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", other))); err == nil || !strings.Contains(err.Error(), "br-gone") {
		t.Errorf("ADD with a bridge missing from the namespace: %v", err)
	}
	if tp.stdout.Len() != 0 {
		t.Errorf("a failed ADD printed a result: %q", tp.stdout.String())
	}
}

func TestCheckFailsWhenARuleIsMissing(t *testing.T) {
	tp := newTestPlugin(t)
	stdin := tp.stdin(t, "1.0.0", dualStack)
	if err := tp.Check(cmdArgs(stdin)); err == nil {
		t.Error("CHECK passed before any ADD")
	}
	if err := tp.Add(cmdArgs(stdin)); err != nil {
		t.Fatal(err)
	}
	if err := tp.Check(cmdArgs(stdin)); err != nil {
		t.Fatalf("CHECK after ADD: %v", err)
	}
	drop := Rule{Chain: DedupChain, Args: strings.Fields(wantDualStackRules[2])}
	if err := tp.eb.DeleteRule(drop); err != nil {
		t.Fatal(err)
	}
	err := tp.Check(cmdArgs(stdin))
	if err == nil || !strings.Contains(err.Error(), "--ip-src 10.244.1.0/24 -j DROP") {
		t.Errorf("CHECK with the IPv4 DROP rule gone: %v", err)
	}
}

func TestDelRemovesNothingAndAlwaysSucceeds(t *testing.T) {
	tp := newTestPlugin(t)
	stdin := tp.stdin(t, "1.0.0", dualStack)
	if err := tp.Add(cmdArgs(stdin)); err != nil {
		t.Fatal(err)
	}
	before := tp.eb.list(DedupChain)
	for name, args := range map[string]*skel.CmdArgs{
		"with prevResult":      cmdArgs(stdin),
		"without prevResult":   cmdArgs(tp.stdin(t, "1.0.0", "")),
		"network already gone": {ContainerID: "c1", IfName: "eth0", StdinData: tp.stdin(t, "1.0.0", "")},
		"unusable config":      cmdArgs([]byte(`{"cniVersion": "1.0.0", "name": "kbgp", "type": "kbgp-cni", "stateDir": "relative"}`)),
	} {
		if err := tp.Del(args); err != nil {
			t.Errorf("DEL %s: %v", name, err)
		}
	}
	if diff := cmp.Diff(before, tp.eb.list(DedupChain)); diff != "" {
		t.Errorf("DEL changed the rules (-before +after):\n%s", diff)
	}
	if got, err := ReadGateways(tp.stateDir); err != nil || len(got) != 2 {
		t.Errorf("records after DEL: %v, %v", got, err)
	}
	if err := tp.Check(cmdArgs(stdin)); err != nil {
		t.Errorf("CHECK after DEL: %v", err)
	}
}

func TestAddAfterTheBridgeMACChangedReplacesTheGatewaysRules(t *testing.T) {
	tp := newTestPlugin(t)
	stdin := tp.stdin(t, "1.0.0", dualStack)
	if err := tp.Add(cmdArgs(stdin)); err != nil {
		t.Fatal(err)
	}
	// The bridge's MAC changed (recreated, or a bridge whose MAC follows its ports); the
	// next ADD's result says so.
	tp.mac = "02:42:0a:f4:00:01"
	if err := tp.Check(cmdArgs(stdin)); err == nil {
		t.Error("CHECK passed with rules for a MAC the bridge no longer has")
	}
	if err := tp.Add(cmdArgs(tp.stdin(t, "1.0.0", strings.ReplaceAll(dualStack, testMAC, tp.mac)))); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range wantDualStackRules {
		want = append(want, strings.ReplaceAll(r, testMAC, tp.mac))
	}
	if diff := cmp.Diff(want, tp.eb.list(DedupChain)); diff != "" {
		t.Errorf("KBGP-DEDUP (-want +got):\n%s", diff)
	}
	// CHECK of the first pod (its cached result has the old MAC) checks the bridge's MAC now.
	if err := tp.Check(cmdArgs(stdin)); err != nil {
		t.Errorf("CHECK: %v", err)
	}
	if !strings.Contains(tp.stderr.String(), "using the kernel's") {
		t.Errorf("no note about the MAC: %q", tp.stderr.String())
	}
}

func TestParseConfigDefaultsStateDir(t *testing.T) {
	conf, err := parseConfig([]byte(`{"cniVersion": "1.0.0", "name": "kbgp", "type": "kbgp-cni"}`))
	if err != nil {
		t.Fatal(err)
	}
	if conf.StateDir != DefaultStateDir {
		t.Errorf("stateDir %q, want %q", conf.StateDir, DefaultStateDir)
	}
	if _, err := parseConfig([]byte(`{"cniVersion": "1.0.0", "name": "kbgp", "type": "kbgp-cni", "stateDir": "rel"}`)); err == nil {
		t.Error("a relative stateDir was accepted")
	}
}
