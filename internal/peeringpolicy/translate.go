package peeringpolicy

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Generated is everything a policy translates into.
type Generated struct {
	ClusterConfig  *kbgpv1.BGPClusterConfig
	PeerConfigs    []*kbgpv1.BGPPeerConfig
	Advertisements []*kbgpv1.BGPAdvertisement
}

// Objects lists the generated objects: the advertisements, then the peer configs that
// select them, then the cluster config that references those.
func (g Generated) Objects() []GeneratedObject {
	var out []GeneratedObject
	for _, a := range g.Advertisements {
		out = append(out, GeneratedObject{Object: a, Kind: "BGPAdvertisement"})
	}
	for _, pc := range g.PeerConfigs {
		out = append(out, GeneratedObject{Object: pc, Kind: "BGPPeerConfig"})
	}
	return append(out, GeneratedObject{Object: g.ClusterConfig, Kind: "BGPClusterConfig"})
}

// GeneratedObject is one generated object with its kind.
type GeneratedObject struct {
	Object metav1.Object
	Kind   string
}

// Defaults the API server would fill in. The generated objects carry them explicitly,
// so what the operator writes is what it reads back and a comparison finds no edit.
const (
	defaultRouterIDPool    = "10.255.0.0/16"
	defaultPeerPort        = 179
	defaultConnectRetry    = 120
	defaultHoldTime        = 90
	defaultKeepAlive       = 30
	defaultRestartTime     = 120
	defaultEBGPMultihopTTL = 1
)

// Translate renders the objects of policy p as the API contract names them. Every
// object is labelled kbgp.io/peering-policy=<policy>; owner references are the
// caller's (they need the policy's UID from the API server).
func Translate(p *kbgpv1.BGPPeeringPolicy) (Generated, error) {
	g := Generated{ClusterConfig: &kbgpv1.BGPClusterConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: kbgpv1.GroupVersion.String(), Kind: "BGPClusterConfig"},
		ObjectMeta: generatedMeta(ClusterConfigName(p.Name), p.Name, nil),
		Spec:       kbgpv1.BGPClusterConfigSpec{NodeSelector: p.Spec.NodeSelector.DeepCopy()},
	}}
	for _, vr := range p.Spec.VirtualRouters {
		ad := advertisement(p.Name, vr)
		var selector *kbgpv1.LabelSelector
		if ad != nil {
			g.Advertisements = append(g.Advertisements, ad)
			selector = &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{kbgpv1.AdvertLabel: kbgpv1.LabelValue(ad.Name)}}
		}
		inst := kbgpv1.BGPInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: vr.LocalASN, RouterIDPool: defaultRouterIDPool}}
		for _, n := range vr.Neighbors {
			addr, err := neighborAddress(n.PeerAddress)
			if err != nil {
				return Generated{}, fmt.Errorf("virtual router %d: %w", vr.LocalASN, err)
			}
			pc := peerConfig(PeerConfigName(p.Name, vr.LocalASN, addr), p.Name, n, selector)
			g.PeerConfigs = append(g.PeerConfigs, pc)
			inst.Peers = append(inst.Peers, kbgpv1.BGPPeer{
				Name: peerName(addr), PeerAddress: addr.String(), PeerASN: n.PeerASN,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name},
			})
		}
		g.ClusterConfig.Spec.BGPInstances = append(g.ClusterConfig.Spec.BGPInstances, inst)
	}
	return g, nil
}

// advertisement is a virtual router's BGPAdvertisement: its pod CIDRs and the
// load-balancer addresses of the Services its serviceSelector selects. A virtual
// router that announces neither gets none (an advertisement lists at least one
// source), and its peers are sent nothing.
func advertisement(policy string, vr kbgpv1.BGPVirtualRouter) *kbgpv1.BGPAdvertisement {
	var ads []kbgpv1.Advertisement
	if vr.ExportPodCIDR {
		ads = append(ads, kbgpv1.Advertisement{AdvertisementType: kbgpv1.AdvertisementPodCIDR})
	}
	if vr.ServiceSelector != nil {
		ads = append(ads, kbgpv1.Advertisement{
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          vr.ServiceSelector.DeepCopy(),
			Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}},
		})
	}
	if len(ads) == 0 {
		return nil
	}
	name := AdvertisementName(policy, vr.LocalASN)
	return &kbgpv1.BGPAdvertisement{
		TypeMeta:   metav1.TypeMeta{APIVersion: kbgpv1.GroupVersion.String(), Kind: "BGPAdvertisement"},
		ObjectMeta: generatedMeta(name, policy, map[string]string{kbgpv1.AdvertLabel: name}),
		Spec:       kbgpv1.BGPAdvertisementSpec{Advertisements: ads},
	}
}

// peerConfig is a neighbour's session settings; every family it negotiates sends the
// virtual router's advertisement (selector nil: nothing).
func peerConfig(name, policy string, n kbgpv1.BGPNeighbor, selector *kbgpv1.LabelSelector) *kbgpv1.BGPPeerConfig {
	spec := kbgpv1.BGPPeerConfigSpec{
		Transport: &kbgpv1.BGPTransport{PeerPort: ptr.To(orDefault(n.PeerPort, defaultPeerPort))},
		Timers: &kbgpv1.BGPTimers{
			ConnectRetryTimeSeconds: ptr.To(orDefault(n.ConnectRetryTimeSeconds, defaultConnectRetry)),
			HoldTimeSeconds:         ptr.To(orDefault(n.HoldTimeSeconds, defaultHoldTime)),
			KeepAliveTimeSeconds:    ptr.To(orDefault(n.KeepAliveTimeSeconds, keepAliveFor(n.HoldTimeSeconds))),
		},
		EBGPMultihop:  ptr.To(orDefault(n.EBGPMultihopTTL, defaultEBGPMultihopTTL)),
		AuthSecretRef: n.AuthSecretRef,
	}
	if gr := n.GracefulRestart; gr != nil {
		spec.GracefulRestart = &kbgpv1.BGPGracefulRestart{Enabled: gr.Enabled, RestartTimeSeconds: ptr.To(orDefault(gr.RestartTimeSeconds, defaultRestartTime)),
			LongLivedStaleTimeSeconds: gr.LongLivedStaleTimeSeconds}
	}
	families := n.Families
	if len(families) == 0 {
		families = []kbgpv1.BGPNeighborFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast}, {AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast}}
	}
	for _, f := range families {
		spec.Families = append(spec.Families, kbgpv1.BGPFamily{AFI: f.AFI, SAFI: f.SAFI, Advertisements: selector.DeepCopy()})
	}
	return &kbgpv1.BGPPeerConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: kbgpv1.GroupVersion.String(), Kind: "BGPPeerConfig"},
		ObjectMeta: generatedMeta(name, policy, nil),
		Spec:       spec,
	}
}

// generatedMeta names a generated object and labels it with its policy.
func generatedMeta(name, policy string, extra map[string]string) metav1.ObjectMeta {
	labels := map[string]string{kbgpv1.PeeringPolicyLabel: policy}
	for k, v := range extra {
		labels[k] = v
	}
	return metav1.ObjectMeta{Name: name, Labels: labels}
}

// keepAliveFor is the keepalive interval when a neighbour sets none: the default, or a
// third of a shorter hold time (RFC 4271's suggestion), since a keepalive longer than
// the hold time would be refused.
func keepAliveFor(hold *int32) int32 {
	if hold == nil {
		return defaultKeepAlive
	}
	return max(1, min(defaultKeepAlive, *hold/3))
}

func orDefault(v *int32, def int32) int32 {
	if v == nil {
		return def
	}
	return *v
}
