package main

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/spf13/pflag"

	"kbgp.io/kbgp/internal/cni"
	"kbgp.io/kbgp/internal/podnet/controller"
)

// podNetworkOptions are the flags of `kbgp agent` that make it the node's pod network.
type podNetworkOptions struct {
	enabled     bool
	confDir     string
	bridge      string
	mtu         int
	ipamDataDir string
	stateDir    string
	clusterPods []string
}

func (o *podNetworkOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.enabled, "pod-network", false, "be the node's pod network: write the CNI configuration from the Node's pod CIDRs (bridge, host-local, portmap, kbgp-cni)")
	f.StringVar(&o.confDir, "cni-conf-dir", "/etc/cni/net.d", "directory the CNI configuration 10-kbgp.conflist is written to (with --pod-network)")
	f.StringVar(&o.bridge, "pod-bridge", "cbr0", "the pods' bridge (with --pod-network)")
	f.IntVar(&o.mtu, "pod-mtu", 0, "MTU of the bridge and pods; 0: the smallest MTU of the host's up, non-loopback, non-virtual interfaces (with --pod-network)")
	f.StringVar(&o.ipamDataDir, "cni-ipam-dir", "", "host-local's state directory; empty: host-local's default /var/lib/cni/networks (with --pod-network)")
	f.StringSliceVar(&o.clusterPods, "cluster-pod-cidrs", nil, "the cluster's pod ranges (comma-separated CIDRs): of the Nodes' pod CIDRs that peers with importPodRoutes send, only those inside them are installed; empty: no bound but the Nodes' pod CIDRs (with --pod-network)")
	f.StringVar(&o.stateDir, "cni-state-dir", cni.DefaultStateDir, "where kbgp-cni records the pod gateways it saw, for the agent's status (with --pod-network)")
}

// agentOptions is the agent's pod network configuration, nil without --pod-network.
func (o *podNetworkOptions) agentOptions() (*controller.Config, error) {
	if !o.enabled {
		return nil, nil
	}
	pn := &controller.Config{CNIConfDir: o.confDir, Bridge: o.bridge, MTU: o.mtu, IPAMDataDir: o.ipamDataDir, CNIStateDir: o.stateDir}
	for _, s := range o.clusterPods {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil || p != p.Masked() {
			return nil, fmt.Errorf("--cluster-pod-cidrs: %q is not a network in CIDR notation", s)
		}
		pn.ClusterPodCIDRs = append(pn.ClusterPodCIDRs, p)
	}
	return pn, nil
}
