package podnet

import (
	"encoding/json"
	"errors"
	"net/netip"
)

// FileName is the CNI network configuration the agent writes: sorted before other
// configurations a node may hold, so the runtime picks it.
const FileName = "10-kbgp.conflist"

// NetworkName names the network in the configuration and in host-local's state.
const NetworkName = "kbgp"

// PluginType is the chained plugin's type: the kbgp binary installed under this name.
const PluginType = "kbgp-cni"

// Config is what the node's CNI configuration is made of.
type Config struct {
	PodCIDRs []netip.Prefix
	// Bridge is the pods' bridge (--pod-bridge).
	Bridge string
	MTU    int
	// IPAMDataDir is host-local's state directory; empty: its default.
	IPAMDataDir string
	// StateDir is where kbgp-cni records the gateways it saw for the agent.
	StateDir string
}

// conflist is the CNI 1.0.0 network configuration list.
type conflist struct {
	CNIVersion string `json:"cniVersion"`
	Name       string `json:"name"`
	Plugins    []any  `json:"plugins"`
}

type bridgePlugin struct {
	Type        string `json:"type"`
	Bridge      string `json:"bridge"`
	IsGateway   bool   `json:"isGateway"`
	HairpinMode bool   `json:"hairpinMode"`
	MTU         int    `json:"mtu"`
	IPAM        ipam   `json:"ipam"`
}

// ipam is host-local with one range per pod CIDR. No range names a gateway: host-local
// reports the one it chose in its result, and kbgp-cni takes it from there.
type ipam struct {
	Type    string  `json:"type"`
	Ranges  [][]rng `json:"ranges"`
	Routes  []route `json:"routes"`
	DataDir string  `json:"dataDir,omitempty"`
}

type rng struct {
	Subnet string `json:"subnet"`
}

type route struct {
	Dst string `json:"dst"`
}

type portmapPlugin struct {
	Type         string          `json:"type"`
	Capabilities map[string]bool `json:"capabilities"`
}

type kbgpPlugin struct {
	Type     string `json:"type"`
	StateDir string `json:"stateDir"`
}

// Conflist renders the node's CNI network configuration: bridge with host-local (a
// range and a default route per pod CIDR's family), portmap, then kbgp-cni.
func Conflist(c Config) ([]byte, error) {
	if len(c.PodCIDRs) == 0 {
		return nil, errors.New("no pod CIDR: the Node has none yet")
	}
	ip := ipam{Type: "host-local", DataDir: c.IPAMDataDir}
	for _, p := range c.PodCIDRs {
		ip.Ranges = append(ip.Ranges, []rng{{Subnet: p.String()}})
		dst := "0.0.0.0/0"
		if p.Addr().Is6() {
			dst = "::/0"
		}
		ip.Routes = append(ip.Routes, route{Dst: dst})
	}
	list := conflist{CNIVersion: "1.0.0", Name: NetworkName, Plugins: []any{
		bridgePlugin{Type: "bridge", Bridge: c.Bridge, IsGateway: true, HairpinMode: true, MTU: c.MTU, IPAM: ip},
		portmapPlugin{Type: "portmap", Capabilities: map[string]bool{"portMappings": true}},
		kbgpPlugin{Type: PluginType, StateDir: c.StateDir},
	}}
	out, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
