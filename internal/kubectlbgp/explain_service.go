package kubectlbgp

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// serviceNode is one node's agent input, as `kubectl bgp routes` gathers it.
type serviceNode struct {
	name  string
	in    intent.Input
	notes []string
	// agent is the node's agent's answer; nil: not asked (--computed).
	agent *agentView
}

// explainService answers "which nodes announce this Service, to whom, and why not
// elsewhere". When the agents were asked, each node's answer starts with what its
// agent holds: per peer, whether each address is in the Adj-RIB-Out now
// (agentServiceLines). The computed answer follows, from intent.Build, the agent's own
// code: what a node announces is its computed exports; why a node announces nothing is
// found by asking Build again with one thing changed (the traffic policy set to
// Cluster), and from the refusals Build reports, so no rule is restated here.
func explainService(key types.NamespacedName, svc *corev1.Service, nodes []serviceNode) []string {
	var t text
	t.line(0, "Service: %s", key)
	if svc == nil {
		t.line(1, "not found")
		return t.lines
	}
	t.line(1, "type %s, class %s, externalTrafficPolicy %s, internalTrafficPolicy %s", svc.Spec.Type, orUnset(svc.Spec.LoadBalancerClass),
		orDefault(string(svc.Spec.ExternalTrafficPolicy), "<unset>"), orUnset((*string)(svc.Spec.InternalTrafficPolicy)))
	addrs := serviceAddrs(svc)
	for _, kind := range []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceClusterIP, kbgpv1.ServiceExternalIP} {
		t.line(1, "%s: %s", kind, joinAddrsOrDash(addrs[kind]))
	}
	if len(nodes) == 0 {
		t.blank()
		t.line(0, "No node runs BGP (no BGPNodeConfig).")
	}
	for _, n := range nodes {
		t.blank()
		t.line(0, "Node %s:", cell(n.name))
		res := intent.Build(n.in)
		announced := serviceRoutes(res, addrs)
		why := ""
		if len(announced) == 0 {
			why = whyNotAnnounced(key, svc, n.in, res)
		}
		depth := 1
		if n.agent != nil {
			agentServiceLines(&t, key, allAddrs(addrs), n, res, why)
			t.line(1, "computed (not read from the agent):")
			depth = 2
		}
		for _, r := range announced {
			t.line(depth, "announces %s", r)
		}
		if len(announced) == 0 {
			t.line(depth, "announces nothing: %s", why)
		}
		for _, note := range n.notes {
			t.line(1, "note: %s", cell(note))
		}
	}
	return t.lines
}

// serviceAddrs are the Service's addresses by kind, as the agent reads them.
func serviceAddrs(svc *corev1.Service) map[kbgpv1.ServiceAddressType][]netip.Addr {
	out := map[kbgpv1.ServiceAddressType][]netip.Addr{}
	add := func(kind kbgpv1.ServiceAddressType, ip string) {
		if a, err := netip.ParseAddr(ip); err == nil {
			out[kind] = append(out[kind], a.Unmap())
		}
	}
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		add(kbgpv1.ServiceLoadBalancerIP, ing.IP)
	}
	for _, ip := range svc.Spec.ClusterIPs {
		add(kbgpv1.ServiceClusterIP, ip)
	}
	for _, ip := range svc.Spec.ExternalIPs {
		add(kbgpv1.ServiceExternalIP, ip)
	}
	return out
}

// allAddrs are the Service's addresses of every kind, in kind order.
func allAddrs(addrs map[kbgpv1.ServiceAddressType][]netip.Addr) []netip.Addr {
	return slices.Concat(addrs[kbgpv1.ServiceLoadBalancerIP], addrs[kbgpv1.ServiceClusterIP], addrs[kbgpv1.ServiceExternalIP])
}

// serviceRoutes lists, per instance and peer, the host routes of addrs the node's peers
// are sent, with their attributes.
func serviceRoutes(res intent.Result, addrs map[kbgpv1.ServiceAddressType][]netip.Addr) []string {
	mine := map[netip.Prefix]bool{}
	for _, as := range addrs {
		for _, a := range as {
			mine[netip.PrefixFrom(a, a.BitLen())] = true
		}
	}
	var out []string
	for _, key := range slices.SortedFunc(maps.Keys(res.Desired.Instances), bgp.InstanceKey.Compare) {
		inst := res.Desired.Instances[key]
		for _, name := range slices.Sorted(maps.Keys(inst.Peers)) {
			export := inst.Peers[name].Export
			for _, p := range slices.SortedFunc(maps.Keys(export), bgp.ComparePrefix) {
				if !mine[p] {
					continue
				}
				a := export[p]
				lp := "-"
				if a.LocalPreference != nil {
					lp = fmt.Sprint(*a.LocalPreference)
				}
				out = append(out, fmt.Sprintf("%s to instance %s peer %s: communities %s, large communities %s, local preference %s",
					p, key, cell(name), joinOrDash(a.Communities, kbgpv1.FormatStandardCommunity), joinOrDash(a.LargeCommunities, largeCommunity), lp))
			}
		}
	}
	return out
}

// whyNotAnnounced says why a node announces none of the Service's addresses, most
// specific reason first.
func whyNotAnnounced(key types.NamespacedName, svc *corev1.Service, in intent.Input, res intent.Result) string {
	if in.NodeConfig == nil || len(in.NodeConfig.Spec.BGPInstances) == 0 {
		return "the node runs no BGP instance"
	}
	if res.Exports != nil {
		if msg := res.Exports.RefusedOf(key); msg != "" {
			return "refused: " + msg
		}
	}
	if local := trafficPolicyCluster(svc); local != nil && len(serviceRoutes(intent.Build(withService(in, local)), serviceAddrs(svc))) > 0 {
		return "its traffic policy is Local and it has no ready endpoint on this node"
	}
	addrs := serviceAddrs(svc)
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass != nil && *svc.Spec.LoadBalancerClass != kbgpv1.LoadBalancerClass {
		if len(addrs[kbgpv1.ServiceClusterIP])+len(addrs[kbgpv1.ServiceExternalIP]) == 0 {
			return fmt.Sprintf("its loadBalancerClass %s is another controller's, and it has no cluster or external IP", cell(*svc.Spec.LoadBalancerClass))
		}
	}
	if len(addrs) == 0 {
		return "it has no address yet (no load-balancer ingress, cluster IP or external IP)"
	}
	return "no BGPAdvertisement that this node's peers select matches the Service's labels (" + cell(labelsOf(svc)) + ") with an address kind it has"
}

// trafficPolicyCluster is svc with both traffic policies Cluster, or nil when neither is
// Local.
func trafficPolicyCluster(svc *corev1.Service) *corev1.Service {
	iLocal := svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	if svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal && !iLocal {
		return nil
	}
	c := svc.DeepCopy()
	c.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	cluster := corev1.ServiceInternalTrafficPolicyCluster
	c.Spec.InternalTrafficPolicy = &cluster
	return c
}

// withService is in with the Service of the same name replaced by svc.
func withService(in intent.Input, svc *corev1.Service) intent.Input {
	in.Services = slices.Clone(in.Services)
	for i := range in.Services {
		if in.Services[i].Namespace == svc.Namespace && in.Services[i].Name == svc.Name {
			in.Services[i] = *svc
		}
	}
	return in
}

func labelsOf(svc *corev1.Service) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(kbgpv1.ServiceLabels(svc.ObjectMeta))) {
		kv = append(kv, k+"="+kbgpv1.ServiceLabels(svc.ObjectMeta)[k])
	}
	return strings.Join(kv, ",")
}

func joinAddrsOrDash(as []netip.Addr) string {
	return joinOrDash(as, netip.Addr.String)
}

func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return cell(*s)
}
