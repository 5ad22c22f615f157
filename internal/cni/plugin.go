package cni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/vishvananda/netlink"
)

// SupportedVersions are the CNI spec versions the plugin speaks: those with chaining
// (prevResult), 0.3.0 on, up to what the library's current result type (types100)
// implements.
var SupportedVersions = version.VersionsStartingFrom("0.3.0")

// Plugin is kbgp-cni's ADD, CHECK and DEL.
type Plugin struct {
	// Ebtables changes the filter table of the plugin's network namespace (the node's).
	Ebtables Ebtables
	// BridgeMAC returns the current MAC address of the named link in the plugin's network
	// namespace (netlink).
	BridgeMAC func(name string) (net.HardwareAddr, error)
	// Stdout receives the result, Stderr notes.
	Stdout, Stderr io.Writer
}

// New is the plugin as the binary runs it: the ebtables command, netlink, the process's
// standard output and error.
func New() *Plugin {
	return &Plugin{
		Ebtables:  &ExecEbtables{},
		BridgeMAC: netlinkMAC,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
	}
}

// Main runs the plugin as the CNI skeleton dispatches it (CNI_COMMAND and friends in the
// environment, the config on stdin) and exits 1 after printing the error as JSON when a
// command fails. about is printed when the binary is run without CNI_COMMAND.
func Main(about string) {
	p := New()
	skel.PluginMainFuncs(skel.CNIFuncs{
		Add:    p.Add,
		Check:  p.Check,
		Del:    p.Del,
		GC:     p.GC,
		Status: p.Status,
	}, SupportedVersions, about)
}

func netlinkMAC(name string) (net.HardwareAddr, error) {
	link, err := netlink.LinkByName(name)
	if err != nil {
		return nil, err
	}
	return link.Attrs().HardwareAddr, nil
}

// parseConfig reads the conflist entry and its prevResult.
func parseConfig(stdin []byte) (*Config, error) {
	conf := &Config{}
	if err := json.Unmarshal(stdin, conf); err != nil {
		return nil, types.NewError(types.ErrDecodingFailure, "parse network configuration: "+err.Error(), "")
	}
	if conf.StateDir == "" {
		conf.StateDir = DefaultStateDir
	}
	if !filepath.IsAbs(conf.StateDir) || filepath.Clean(conf.StateDir) != conf.StateDir {
		return nil, types.NewError(types.ErrInvalidNetworkConfig, fmt.Sprintf("stateDir %q is not a clean absolute path", conf.StateDir), "")
	}
	if err := version.ParsePrevResult(&conf.PluginConf); err != nil {
		return nil, types.NewError(types.ErrDecodingFailure, err.Error(), "")
	}
	return conf, nil
}

// readArgs parses the plugin's configuration and reads its gateways (gatewaysNow): what
// ADD and CHECK both start from.
func (p *Plugin) readArgs(args *skel.CmdArgs) (*Config, []Gateway, error) {
	conf, err := parseConfig(args.StdinData)
	if err != nil {
		return nil, nil, err
	}
	gws, err := p.gatewaysNow(conf)
	return conf, gws, err
}

// gatewaysNow reads the gateways of the config's prevResult and sets their bridge MAC to
// the one the kernel reports for the bridge now; a bridge missing from the plugin's
// network namespace is an error.
func (p *Plugin) gatewaysNow(conf *Config) ([]Gateway, error) {
	if conf.PrevResult == nil {
		return nil, types.NewError(types.ErrInvalidNetworkConfig, PluginType+" is a chained plugin: it needs a prevResult (put it after bridge, host-local and portmap in the conflist)", "")
	}
	res, err := types100.NewResultFromResult(conf.PrevResult)
	if err != nil {
		return nil, fmt.Errorf("convert prevResult: %w", err)
	}
	br, gws, notes, err := Gateways(res)
	if err != nil {
		return nil, fmt.Errorf("prevResult: %w", err)
	}
	for _, n := range notes {
		p.note("%s", n)
	}
	if len(gws) == 0 {
		return nil, nil
	}
	// The rules must match the MAC the bridge has now. The bridge plugin sets the MAC of a
	// bridge it creates, but a bridge made by someone else whose MAC nobody set follows
	// its lowest port MAC, and CHECK gets a cached result: the kernel's answer is current.
	hw, err := p.BridgeMAC(br.Name)
	if err != nil {
		return nil, fmt.Errorf("bridge %s (from the previous result) in the plugin's network namespace: %w", br.Name, err)
	}
	if len(hw) == 0 {
		return nil, fmt.Errorf("bridge %s has no MAC address", br.Name)
	}
	mac := hw.String()
	for i := range gws {
		if gws[i].BridgeMAC != "" && gws[i].BridgeMAC != mac {
			p.note("bridge %s: the result says MAC %s, the kernel %s now: using the kernel's", br.Name, gws[i].BridgeMAC, mac)
			break
		}
	}
	for i := range gws {
		gws[i].BridgeMAC = mac
	}
	return gws, nil
}

// Add ensures the dedup rules for each gateway of the previous result, records the
// gateways in the state dir and prints the previous result unchanged.
func (p *Plugin) Add(args *skel.CmdArgs) error {
	conf, gws, err := p.readArgs(args)
	if err != nil {
		return err
	}
	if len(gws) > 0 {
		if err := p.ensure(conf.StateDir, gws); err != nil {
			return err
		}
	}
	return printResult(p.Stdout, conf.PrevResult, conf.CNIVersion)
}

// ensure does ADD's work under the state lock.
func (p *Plugin) ensure(stateDir string, gws []Gateway) error {
	unlock, err := lockState(stateDir)
	if err != nil {
		return err
	}
	defer unlock()
	var replaced []Gateway
	for _, g := range gws {
		prev, ok, err := readGateway(stateDir, g.Gateway)
		if err != nil {
			p.note("previous record of gateway %s unreadable, overwriting it: %v", g.Gateway, err)
		} else if ok && prev != g {
			replaced = append(replaced, prev)
		}
	}
	records, err := ReadGateways(stateDir)
	if err != nil {
		p.note("superseded gateways not looked for: %v", err)
	}
	superseded := supersededGateways(records, gws)
	rules, err := Rules(gws)
	if err != nil {
		return err
	}
	if err := ensureRules(p.Ebtables, rules); err != nil {
		return fmt.Errorf("ensure ebtables dedup rules: %w", err)
	}
	for _, g := range gws {
		if err := writeGateway(stateDir, g); err != nil {
			return err
		}
	}
	for _, g := range superseded {
		if err := removeGateway(stateDir, g.Gateway); err != nil {
			p.note("record of superseded gateway %s not removed: %v", g.Gateway, err)
		}
	}
	replaced = append(replaced, superseded...)
	if len(replaced) == 0 {
		return nil
	}
	// A gateway's rules for a MAC the bridge no longer has, a subnet it no longer
	// serves or an address that is no longer its gateway match nothing the bridge
	// sends: remove them, or every MAC change (a bridge recreated, or one whose MAC
	// follows its ports) or pod CIDR change would leave rules behind. Rules a current
	// record still yields stay.
	current, err := ReadGateways(stateDir)
	if err != nil {
		p.note("stale dedup rules left in place: %v", err)
		return nil
	}
	for _, prev := range replaced {
		stale := staleRules(prev, current)
		if err := deleteRules(p.Ebtables, stale); err != nil {
			p.note("removing stale dedup rules of gateway %s (MAC %s): %v", prev.Gateway, prev.BridgeMAC, err)
		}
	}
	return nil
}

// Check fails unless the dedup rules for each gateway of the previous result are in
// place for the bridge's current MAC, with the jump from OUTPUT.
func (p *Plugin) Check(args *skel.CmdArgs) error {
	_, gws, err := p.readArgs(args)
	if err != nil {
		return err
	}
	if len(gws) == 0 {
		return nil
	}
	rules, err := Rules(gws)
	if err != nil {
		return err
	}
	missing, err := missingRules(p.Ebtables, rules)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		lines := make([]string, len(missing))
		for i, r := range missing {
			lines[i] = r.String()
		}
		return fmt.Errorf("ebtables dedup rules missing from the filter table: %s", strings.Join(lines, "; "))
	}
	return nil
}

// Del removes nothing and always succeeds. The dedup rules and the gateway records are
// per gateway, not per pod: every pod on the node's bridge shares them, and the pod being
// deleted cannot know whether it is the last one (nor need it be: the rules cost nothing
// without pods and are needed again by the next one). So DEL has nothing of its own to
// release, and it succeeds also without a prevResult, with a config it cannot use, or
// when the network is already gone, as the CNI spec asks of DEL.
func (p *Plugin) Del(_ *skel.CmdArgs) error {
	return nil
}

// GC has nothing to collect: the plugin keeps nothing per attachment.
func (p *Plugin) GC(_ *skel.CmdArgs) error {
	return nil
}

// Status is always ready: the plugin needs nothing but ebtables at ADD time.
func (p *Plugin) Status(_ *skel.CmdArgs) error {
	return nil
}

func (p *Plugin) note(format string, args ...any) {
	if p.Stderr != nil {
		fmt.Fprintf(p.Stderr, PluginType+": "+format+"\n", args...)
	}
}

// printResult is types.PrintResult writing to w: the result converted to the config's
// CNI version.
func printResult(w io.Writer, res types.Result, cniVersion string) error {
	if res == nil {
		return errors.New("no result to print")
	}
	out, err := res.GetAsVersion(cniVersion)
	if err != nil {
		return err
	}
	return out.PrintTo(w)
}
