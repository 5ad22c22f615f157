// Package cni is kbgp-cni (cmd/kbgp-cni): a chained CNI plugin that runs
// after Debian's (or upstream's) bridge, host-local and portmap plugins in the node's
// conflist (docs/pod-network.md).
//
// On ADD it reads each family's gateway and pod subnet from the previous plugin's result
// — never computed from a pod CIDR, never by writing into a net.IP or net.IPNet it was
// handed (kubenet's old bug, docs/design/README.md) — ensures kubenet's ebtables dedup rules for
// each gateway, records what it saw for the agent in its state directory and returns the
// previous result unchanged.
//
// The pure part (which gateways a result yields, which rules a gateway needs) is in this
// file and table-tested without root; ebtables is reached through the Ebtables interface.
package cni

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"

	"kbgp.io/kbgp/internal/podnet"
)

const (
	// PluginType is the plugin's type in a conflist and its file name in the CNI bin dir.
	PluginType = podnet.PluginType
	// DefaultStateDir is where the plugin records gateways when the config names none.
	DefaultStateDir = "/var/lib/kbgp/cni"
	// DedupChain is the ebtables chain (filter table) holding the dedup rules; OUTPUT
	// jumps to it.
	DedupChain = "KBGP-DEDUP"
	// OutputChain is the filter table's built-in chain for frames the bridge device
	// itself (the node's IP stack) sends out of its ports.
	OutputChain = "OUTPUT"
	// vethPorts matches the pods' host-side veth ports of the bridge, as kubenet did.
	vethPorts = "veth+"
)

// Config is the plugin's entry in the conflist:
//
//	{"type": "kbgp-cni", "stateDir": "/var/lib/kbgp/cni"}
//
// plus the standard fields (cniVersion, name) and the prevResult the runtime adds.
type Config struct {
	types.PluginConf
	// StateDir holds the lock and the gateway records (<stateDir>/gateways/);
	// DefaultStateDir when empty.
	StateDir string `json:"stateDir,omitempty"`
}

// Gateway is what the plugin saw for one pod gateway: the record it writes for the agent
// (one JSON file per gateway in <stateDir>/gateways/) and the key of the dedup rules.
// The addresses are netip values, so a Gateway never shares memory with the CNI result
// it was read from.
type Gateway struct {
	// Gateway is the gateway of the pod's address, as the previous result returned it.
	Gateway netip.Addr `json:"gateway"`
	// Subnet is the pod address's network (the pod CIDR host-local allocated from).
	Subnet netip.Prefix `json:"subnet"`
	// Bridge is the name of the bridge the pods hang off (the bridge plugin's bridge).
	Bridge string `json:"bridge"`
	// BridgeMAC is the bridge's MAC address the rules match as the frames' source.
	BridgeMAC string `json:"bridgeMAC"`
}

// Family is "IPv4" or "IPv6", as ebtables' -p spells it.
func (g Gateway) Family() string {
	if g.Gateway.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// Bridge is the host-side bridge interface of a result.
type Bridge struct {
	Name string
	// MAC is the MAC address the result reports for it ("" when it reports none).
	MAC string
}

// Gateways reads the bridge and, for each IP config of res, the gateway and pod subnet.
// Both come from the result: the gateway is ipc.Gateway and the subnet is the address
// masked by its own mask, both converted to netip values (copies). res is only read.
// A family whose IP config carries no gateway yields no Gateway and a note (for stderr).
// Each Gateway's BridgeMAC is the result's MAC of the bridge, normalised; the caller may
// replace it with the bridge's current MAC.
func Gateways(res *types100.Result) (Bridge, []Gateway, []string, error) {
	if res == nil {
		return Bridge{}, nil, nil, fmt.Errorf("no previous result")
	}
	var br Bridge
	found := false
	for _, iface := range res.Interfaces {
		if iface != nil && iface.Sandbox == "" && iface.Name != "" {
			br = Bridge{Name: iface.Name, MAC: iface.Mac}
			found = true
			break
		}
	}
	if !found {
		return Bridge{}, nil, nil, fmt.Errorf("the previous result has no host-side interface (the bridge plugin's bridge): is kbgp-cni chained after bridge?")
	}
	mac := ""
	if br.MAC != "" {
		hw, err := net.ParseMAC(br.MAC)
		if err != nil {
			return Bridge{}, nil, nil, fmt.Errorf("bridge %s: MAC %q: %w", br.Name, br.MAC, err)
		}
		mac = hw.String()
	}
	var (
		gws   []Gateway
		notes []string
	)
	for i, ipc := range res.IPs {
		if ipc == nil {
			continue
		}
		subnet, err := subnetOf(ipc.Address)
		if err != nil {
			return Bridge{}, nil, nil, fmt.Errorf("ips[%d]: %w", i, err)
		}
		family := "IPv6"
		if subnet.Addr().Is4() {
			family = "IPv4"
		}
		if len(ipc.Gateway) == 0 {
			notes = append(notes, fmt.Sprintf("ips[%d] (%s, %s) has no gateway in the previous result: no dedup rules for it", i, family, subnet))
			continue
		}
		gw, ok := netip.AddrFromSlice(ipc.Gateway) // copies the bytes
		if !ok {
			return Bridge{}, nil, nil, fmt.Errorf("ips[%d]: gateway %v is not an IP address", i, ipc.Gateway)
		}
		gw = gw.Unmap()
		if gw.Is4() != subnet.Addr().Is4() {
			return Bridge{}, nil, nil, fmt.Errorf("ips[%d]: gateway %s is not of the address's family (%s)", i, gw, subnet)
		}
		if !subnet.Contains(gw) {
			notes = append(notes, fmt.Sprintf("ips[%d]: gateway %s is outside the pod subnet %s", i, gw, subnet))
		}
		if j := slices.IndexFunc(gws, func(g Gateway) bool { return g.Gateway == gw }); j >= 0 {
			if gws[j].Subnet != subnet {
				notes = append(notes, fmt.Sprintf("ips[%d]: gateway %s already seen with subnet %s; ignoring subnet %s", i, gw, gws[j].Subnet, subnet))
			}
			continue
		}
		gws = append(gws, Gateway{Gateway: gw, Subnet: subnet, Bridge: br.Name, BridgeMAC: mac})
	}
	return br, gws, notes, nil
}

// subnetOf is the network of a pod address: the address masked by its mask, as a netip
// value (the net.IPNet is not written to).
func subnetOf(a net.IPNet) (netip.Prefix, error) {
	addr, ok := netip.AddrFromSlice(a.IP)
	if !ok {
		return netip.Prefix{}, fmt.Errorf("address %v is not an IP address", a.IP)
	}
	addr = addr.Unmap()
	ones, bits := a.Mask.Size()
	switch {
	case bits == 0:
		return netip.Prefix{}, fmt.Errorf("address %s: mask %v is not a prefix mask", addr, a.Mask)
	case addr.Is4() && bits == 128 && ones >= 96: // an IPv4 mask in 16-byte form
		ones -= 96
	case bits != addr.BitLen():
		return netip.Prefix{}, fmt.Errorf("address %s: mask %v is of the other family", addr, a.Mask)
	}
	return netip.PrefixFrom(addr, ones).Masked(), nil
}

// Position is where a rule goes in its chain when it is missing.
type Position int

const (
	// Append puts the rule at the end of the chain.
	Append Position = iota
	// Insert puts the rule at the top of the chain, before every DROP.
	Insert
)

// Rule is one ebtables rule of the filter table.
type Rule struct {
	Chain string
	// Args are the rule's matches and target, e.g. -p IPv4 -s MAC -o veth+ --ip-src GW -j ACCEPT.
	Args     []string
	Position Position
}

// String is the rule as an ebtables command line after the table.
func (r Rule) String() string {
	return r.Chain + " " + strings.Join(r.Args, " ")
}

// JumpRule sends every frame the bridge device sends out through DedupChain.
func JumpRule() Rule {
	return Rule{Chain: OutputChain, Args: []string{"-j", DedupChain}, Position: Append}
}

// GatewayRules are kubenet's dedup rules for one gateway. Frames the node itself sends out
// of the bridge's veth ports (OUTPUT) with the bridge's MAC as source are ACCEPTed when
// their IP source is the gateway (the node's own traffic to its pods) and DROPped when it
// is another address of the pod subnet: those are copies of pod traffic the node's IP
// stack picked up from the bridge and sent back out, while the bridge already delivered
// the original frame. The ACCEPT is inserted at the top of the chain so that it precedes
// every DROP, also another family's or an older subnet's.
func GatewayRules(g Gateway) ([]Rule, error) {
	hw, err := net.ParseMAC(g.BridgeMAC)
	if err != nil {
		return nil, fmt.Errorf("gateway %s: bridge MAC %q: %w", g.Gateway, g.BridgeMAC, err)
	}
	if !g.Gateway.IsValid() || !g.Subnet.IsValid() {
		return nil, fmt.Errorf("gateway %q subnet %q: both are required", g.Gateway, g.Subnet)
	}
	ipSrc := "--ip-src"
	if !g.Gateway.Is4() {
		ipSrc = "--ip6-src"
	}
	common := []string{"-p", g.Family(), "-s", hw.String(), "-o", vethPorts, ipSrc}
	return []Rule{
		{Chain: DedupChain, Args: append(slices.Clone(common), g.Gateway.String(), "-j", "ACCEPT"), Position: Insert},
		{Chain: DedupChain, Args: append(slices.Clone(common), g.Subnet.String(), "-j", "DROP"), Position: Append},
	}, nil
}

// Rules are the rules for gws, each gateway's in order, then the jump from OUTPUT (last,
// so that frames only go through the chain once it holds what it needs).
func Rules(gws []Gateway) ([]Rule, error) {
	var out []Rule
	for _, g := range gws {
		rs, err := GatewayRules(g)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return append(out, JumpRule()), nil
}

// staleRules are the rules of a gateway's previous record that none of the current
// records needs: the bridge's MAC changed (the bridge was recreated with another MAC, or
// it is a bridge the bridge plugin did not create and whose MAC nobody set, which takes
// its lowest port MAC) or the gateway moved to another subnet. A rule another current
// record also yields is kept.
func staleRules(prev Gateway, current []Gateway) []Rule {
	old, err := GatewayRules(prev)
	if err != nil {
		return nil
	}
	keep := map[string]bool{}
	for _, g := range current {
		rs, err := GatewayRules(g)
		if err != nil {
			continue
		}
		for _, r := range rs {
			keep[r.String()] = true
		}
	}
	return slices.DeleteFunc(old, func(r Rule) bool { return keep[r.String()] })
}

// supersededGateways are the recorded gateways of the bridges in gws, of a family gws
// has, at another address: the bridge's gateway moved (the node's pod CIDR changed),
// and their rules match nothing it sends any more.
func supersededGateways(records, gws []Gateway) []Gateway {
	var out []Gateway
	for _, r := range records {
		sameBridgeAndFamily := func(g Gateway) bool { return g.Bridge == r.Bridge && g.Family() == r.Family() }
		current := func(g Gateway) bool { return g.Gateway == r.Gateway }
		if slices.ContainsFunc(gws, sameBridgeAndFamily) && !slices.ContainsFunc(gws, current) {
			out = append(out, r)
		}
	}
	return out
}
