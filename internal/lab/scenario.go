package lab

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// The lab's numbering. Node addresses and pod CIDRs are data in the API only; the BGP
// sessions run over 127.0.0.0/8, which every Linux loopback answers without setup.
const (
	clusterASN  = 65001
	upstreamASN = 64512
	// routerIDAnnotation holds the router ID of the node that reads it by template.
	routerIDAnnotation = "lab.kbgp.io/router-id"
	// advertiseLabel selects the lab's BGPAdvertisement from its BGPPeerConfig.
	advertiseLabel = "advertise"
	// namespace holds the agents' Leases and Secrets.
	namespace = "kbgp-system"
)

var (
	upstreamAddr     = netip.MustParseAddr("127.0.0.1")
	upstreamRouterID = netip.MustParseAddr("10.254.0.1")
)

// labNode is one Node of the lab and the address its agent's sessions come from.
type labNode struct {
	name string
	// source is the agent's local address for its BGP session.
	source     netip.Addr
	internalIP string
	podCIDRs   []string
	// annotatedRouterID, when set, is the router ID the node carries in an annotation
	// that its cluster config reads by template.
	annotatedRouterID string
	// routerIDSource is how the agent must resolve the node's router ID.
	routerIDSource kbgpv1.RouterIDSource
}

// nodes are the lab's three Nodes: one whose router ID comes from an annotation by
// template, one IPv6-only (hashed into the pool), one auto-detected from its IPv4.
var nodes = []labNode{
	{name: "lab-node-1", source: netip.MustParseAddr("127.0.1.1"), internalIP: "10.0.0.1",
		podCIDRs: []string{"10.244.1.0/24", "fd10:244:1::/64"}, annotatedRouterID: "10.99.0.1",
		routerIDSource: kbgpv1.RouterIDSourceTemplate},
	{name: "lab-node-2", source: netip.MustParseAddr("127.0.1.2"), internalIP: "fd10::2",
		podCIDRs: []string{"fd10:244:2::/64"}, routerIDSource: kbgpv1.RouterIDSourceHash},
	{name: "lab-node-3", source: netip.MustParseAddr("127.0.1.3"), internalIP: "10.0.0.3",
		podCIDRs: []string{"10.244.3.0/24"}, routerIDSource: kbgpv1.RouterIDSourceNodeIPv4},
}

// labService is one LoadBalancer Service of the lab.
type labService struct {
	name string
	// ip is the address the Service ends up with.
	ip string
	// requested, when true, asks the pool for ip by annotation; otherwise the pool
	// picks it (the lowest address the requested ones leave free).
	requested bool
	class     *string
	// localOn, when set, makes the Service externalTrafficPolicy Local with one ready
	// endpoint on that node.
	localOn string
}

// The lab's LoadBalancerIPPool hands out these two addresses: api asks for the second,
// so web gets the first whichever the operator serves first.
const (
	labPoolStart = "100.64.0.10"
	labPoolStop  = "100.64.0.11"
)

// services: one announced by every node, one only by the node with its endpoint (both
// given their addresses by the operator from the lab's pool), and one of another
// load-balancer class that kbgp must leave alone, whose address the lab writes as that
// class's controller would.
var services = []labService{
	{name: "web", ip: labPoolStart},
	{name: "api", ip: labPoolStop, requested: true, localOn: "lab-node-3"},
	{name: "other-lb", ip: "100.64.0.12", class: ptr.To("other.example/lb")},
}

// Communities the lab's advertisement attaches, as the upstream router prints them.
var (
	podCIDRCommunities = []string{"65001:100"}
	serviceCommunities = []string{"65001:200", "65001:1:2"}
)

// expectedRoute is a route the upstream router must receive from a node.
type expectedRoute struct {
	from        netip.Addr
	prefix      netip.Prefix
	communities []string
}

// expectedRoutes is the lab's answer key, written from the rules, not computed by kbgp's
// code: each node's pod CIDRs, the cluster-wide Service from every node, the Local
// Service only from the node with its endpoint, nothing of the other class.
func expectedRoutes() []expectedRoute {
	var out []expectedRoute
	for _, n := range nodes {
		for _, c := range n.podCIDRs {
			out = append(out, expectedRoute{from: n.source, prefix: netip.MustParsePrefix(c), communities: podCIDRCommunities})
		}
		for _, s := range services {
			if s.class != nil || (s.localOn != "" && s.localOn != n.name) {
				continue
			}
			out = append(out, expectedRoute{from: n.source, prefix: netip.MustParsePrefix(s.ip + "/32"), communities: serviceCommunities})
		}
	}
	return out
}

// objects returns everything the lab creates, in creation order, for an upstream
// router listening on port. Status that controllers outside kbgp would write (Node
// addresses, the other class's load-balancer IP) is applied separately by the caller.
func objects(port uint16) []client.Object {
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}}
	for _, n := range nodes {
		objs = append(objs, node(n), override(n))
	}
	objs = append(objs, clusterConfig("lab-annotated", "annotation", "${node.annotations['"+routerIDAnnotation+"']}"),
		clusterConfig("lab", "auto", ""), peerConfig(port), advertisement(), pool())
	for _, s := range services {
		objs = append(objs, service(s))
		if s.localOn != "" {
			objs = append(objs, endpointSlice(s))
		}
	}
	return objs
}

func node(n labNode) *corev1.Node {
	source := "auto"
	annotations := map[string]string{}
	if n.annotatedRouterID != "" {
		source = "annotation"
		annotations[routerIDAnnotation] = n.annotatedRouterID
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{"lab.kbgp.io/router-id": source}, Annotations: annotations},
		Spec:       corev1.NodeSpec{PodCIDR: n.podCIDRs[0], PodCIDRs: n.podCIDRs},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: n.internalIP}, {Type: corev1.NodeHostName, Address: n.name},
		}},
	}
}

// override gives the node's session its own loopback source address, so the upstream
// router tells the three agents apart.
func override(n labNode) *kbgpv1.BGPNodeConfigOverride {
	return &kbgpv1.BGPNodeConfigOverride{
		ObjectMeta: metav1.ObjectMeta{Name: n.name},
		Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: n.name, BGPInstances: []kbgpv1.BGPInstanceOverride{{
			LocalASN: clusterASN,
			Peers: []kbgpv1.BGPPeerOverride{{Name: "upstream",
				PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: n.source.String()}}},
		}}},
	}
}

// clusterConfig selects the nodes labelled with routerIDSource; routerID "" leaves the
// ID to auto-detection and the hash fallback.
func clusterConfig(name, routerIDSource, routerID string) *kbgpv1.BGPClusterConfig {
	return &kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPClusterConfigSpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"lab.kbgp.io/router-id": kbgpv1.LabelValue(routerIDSource)}},
			BGPInstances: []kbgpv1.BGPInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: clusterASN, RouterID: routerID, RouterIDPool: "10.255.0.0/16"},
				Peers: []kbgpv1.BGPPeer{{Name: "upstream", PeerAddress: upstreamAddr.String(), PeerASN: upstreamASN,
					PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "upstream"}}},
			}},
		},
	}
}

// peerConfig uses short timers so the lab comes up and notices failures fast.
func peerConfig(port uint16) *kbgpv1.BGPPeerConfig {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{advertiseLabel: "lab"}}
	return &kbgpv1.BGPPeerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "upstream"},
		Spec: kbgpv1.BGPPeerConfigSpec{
			Transport: &kbgpv1.BGPTransport{PeerPort: ptr.To(int32(port))},
			Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To(int32(1)), HoldTimeSeconds: ptr.To(int32(9)),
				KeepAliveTimeSeconds: ptr.To(int32(3))},
			Families: []kbgpv1.BGPFamily{
				{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
				{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
			},
		},
	}
}

func advertisement() *kbgpv1.BGPAdvertisement {
	return &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: "lab", Labels: map[string]string{advertiseLabel: "lab"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{
			{AdvertisementType: kbgpv1.AdvertisementPodCIDR, Attributes: &kbgpv1.BGPAttributes{
				Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:100"}}}},
			{AdvertisementType: kbgpv1.AdvertisementService,
				Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}},
				Attributes: &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{
					Standard: []kbgpv1.StandardCommunity{"65001:200"}, Large: []kbgpv1.LargeCommunity{"65001:1:2"}}}},
		}},
	}
}

// pool is the lab's LoadBalancerIPPool. The advertisement names no
// loadBalancerIPPrefixes: a pool's addresses are allowed as they are.
func pool() *kbgpv1.LoadBalancerIPPool {
	return &kbgpv1.LoadBalancerIPPool{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec:       kbgpv1.LoadBalancerIPPoolSpec{Blocks: []kbgpv1.IPBlock{{Start: labPoolStart, Stop: labPoolStop}}},
	}
}

func service(s labService) *corev1.Service {
	policy := corev1.ServiceExternalTrafficPolicyCluster
	if s.localOn != "" {
		policy = corev1.ServiceExternalTrafficPolicyLocal
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: s.name, Labels: map[string]string{"app": s.name}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: policy,
			LoadBalancerClass: s.class, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if s.requested {
		svc.Annotations = map[string]string{kbgpv1.LoadBalancerIPsAnnotation: s.ip}
	}
	if s.class != nil {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: s.ip}}
	}
	return svc
}

// endpointSlice puts one ready endpoint of s on its node.
func endpointSlice(s labService) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-1", s.name),
			Labels: map[string]string{discoveryv1.LabelServiceName: s.name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.3.10"}, NodeName: ptr.To(s.localOn),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports: []discoveryv1.EndpointPort{{Port: ptr.To(int32(80))}},
	}
}
