package kcluster

import "fmt"

// The lab's addresses, all inside the namespaces the cluster creates (TEST-NET-2,
// TEST-NET-3, 2001:db8::/32 and 10/8, never the machine's own 192.0.2.0/24 or
// fd00::/64). config/cluster-lab carries the same values for kbgp.
const (
	// The rack's LAN: the ToR, the control plane and the nodes.
	torLANv4 = "198.51.100.1"
	torLANv6 = "2001:db8:100::1"
	// APIServerIP is where every node and pod reaches the API server (its
	// --advertise-address: the kubernetes Service's endpoint).
	APIServerIP = "198.51.100.10"
	cpLANv6     = "2001:db8:100::10"
	// The client network behind the ToR.
	torClientV4 = "203.0.113.1"
	ClientV4    = "203.0.113.2"
	torClientV6 = "2001:db8:203::1"
	ClientV6    = "2001:db8:203::2"

	ClusterPodCIDRv4 = "10.244.0.0/16"
	ClusterPodCIDRv6 = "2001:db8:244::/56"
	ServiceCIDR      = "10.96.0.0/16"
	// LoadBalancerCIDR is the LoadBalancerIPPool of config/cluster-lab.
	LoadBalancerCIDR = "10.250.0.0/24"

	TorASN  = 64512
	NodeASN = 64513
)

// nodeName and the node's LAN addresses: node-1 is 198.51.100.11.
func nodeName(i int) string { return fmt.Sprintf("node-%d", i) }
func nodeV4(i int) string   { return fmt.Sprintf("198.51.100.%d", 10+i) }
func nodeV6(i int) string   { return fmt.Sprintf("2001:db8:100::%d", 10+i) }
