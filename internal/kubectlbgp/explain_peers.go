package kubectlbgp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// explainInstances writes the instances the operator renders for the node (cluster
// config plus override), each peer with the BGPPeerConfig it references and the
// BGPAdvertisements each of that config's families selects.
func explainInstances(t *text, in explainInput, winner *kbgpv1.BGPClusterConfig, nc *kbgpv1.BGPNodeConfig, ov *kbgpv1.BGPNodeConfigOverride) {
	from := winner.Name
	if ov != nil {
		from += " with override " + ov.Name
	}
	t.line(0, "Instances (rendered from %s):", from)
	peerConfigs := make(map[string]*kbgpv1.BGPPeerConfig, len(in.PeerConfigs))
	for i := range in.PeerConfigs {
		peerConfigs[in.PeerConfigs[i].Name] = &in.PeerConfigs[i]
	}
	for i, inst := range nc.Spec.BGPInstances {
		// Rendering keeps the cluster config's order; the override is keyed by the
		// cluster config's ASN, which its nodeLocalASN may have replaced.
		clusterASN := winner.Spec.BGPInstances[i].LocalASN
		name := fmt.Sprint(inst.LocalASN)
		if clusterASN != inst.LocalASN {
			name = fmt.Sprintf("%d (override nodeLocalASN of %d)", inst.LocalASN, clusterASN)
		}
		t.line(1, "instance %s: %s", name, strings.Join(instanceFields(inst, overriddenInstance(ov, clusterASN)), ", "))
		if len(inst.Peers) == 0 {
			t.line(2, "no peers")
		}
		for _, p := range inst.Peers {
			t.line(2, "peer %s: %s", p.Name, strings.Join(peerFields(p), ", "))
			explainPeerConfig(t, 3, p.PeerConfigRef, peerConfigs, in.Advertisements)
		}
		if m := winner.Spec.BGPInstances[i].Mesh; m != nil && m.Enabled {
			t.line(2, "mesh: %s", meshSummary(m, in.NodeConfig, inst.LocalASN))
			explainPeerConfig(t, 3, m.PeerConfigRef, peerConfigs, in.Advertisements)
		}
	}
}

// meshSummary describes an instance's mesh and counts the mesh peers the stored node
// config has (the other nodes, which explain does not list: kubectl bgp peers does).
func meshSummary(m *kbgpv1.BGPMesh, stored *kbgpv1.BGPNodeConfig, asn int64) string {
	kind := "full mesh of the cluster config's nodes"
	if rr := m.RouteReflectors; rr != nil {
		sel, _ := json.Marshal(rr.NodeSelector)
		kind = fmt.Sprintf("route reflectors %s, cluster ID %s", sel, rr.ClusterID)
	}
	if stored == nil {
		return kind
	}
	for _, inst := range stored.Spec.BGPInstances {
		if inst.LocalASN == asn && inst.Mesh != nil {
			role := "a client"
			if inst.Mesh.ClusterID != "" {
				role = "a reflector"
			}
			if m.RouteReflectors == nil {
				return fmt.Sprintf("%s; %d mesh peers rendered", kind, len(inst.Mesh.Peers))
			}
			return fmt.Sprintf("%s; this node is %s, %d mesh peers rendered", kind, role, len(inst.Mesh.Peers))
		}
	}
	return kind + "; no mesh peers rendered yet"
}

// overriddenInstance is the override's entry for asn, nil when it has none.
func overriddenInstance(ov *kbgpv1.BGPNodeConfigOverride, asn int64) *kbgpv1.BGPInstanceOverride {
	if ov == nil {
		return nil
	}
	for i := range ov.Spec.BGPInstances {
		if ov.Spec.BGPInstances[i].LocalASN == asn {
			return &ov.Spec.BGPInstances[i]
		}
	}
	return nil
}

// instanceFields describes an instance's settings, marking those the override set.
func instanceFields(inst kbgpv1.BGPNodeInstance, oi *kbgpv1.BGPInstanceOverride) []string {
	var f []string
	switch {
	case oi != nil && oi.RouterID != "":
		f = append(f, "routerID "+inst.RouterID+" (override)")
	case inst.RouterID == "":
		f = append(f, "routerID auto (node InternalIP IPv4, else a hash into the pool)")
	default:
		f = append(f, "routerID "+inst.RouterID)
	}
	f = append(f, "routerIDPool "+orDefault(inst.RouterIDPool, "10.255.0.0/16 (default)"))
	switch {
	case inst.LocalPort == nil:
		f = append(f, "not listening")
	case oi != nil && oi.LocalPort != nil:
		f = append(f, fmt.Sprintf("localPort %d (override)", *inst.LocalPort))
	default:
		f = append(f, fmt.Sprintf("localPort %d", *inst.LocalPort))
	}
	return f
}

// peerFields describes a rendered peer: where it is and its node-side endpoint, which
// only an override sets.
func peerFields(p kbgpv1.BGPNodePeer) []string {
	where := p.PeerAddress
	if p.Interface != "" {
		where = "interface " + p.Interface
	}
	f := []string{fmt.Sprintf("%s AS %s", where, peerASN(p.PeerASN, p.DynamicASN)), "vrf " + orDefault(p.VRF, "default")}
	for _, e := range endpointFields(p.PeerLocalEndpoint) {
		f = append(f, e+" (override)")
	}
	return f
}

// explainPeerConfig writes the peer's BGPPeerConfig: whether it exists (the agent does
// not start a peer whose config is missing), its auth Secret and its families.
func explainPeerConfig(t *text, depth int, ref *kbgpv1.PeerConfigReference, pcs map[string]*kbgpv1.BGPPeerConfig, ads []kbgpv1.BGPAdvertisement) {
	if ref == nil {
		t.line(depth, "peerConfigRef: none (default transport and timers; advertises nothing)")
		return
	}
	pc, ok := pcs[ref.Name]
	if !ok {
		t.line(depth, "peerConfigRef: %s NOT FOUND (the agent does not start this peer)", ref.Name)
		return
	}
	auth := "none"
	if pc.Spec.AuthSecretRef != nil {
		auth = *pc.Spec.AuthSecretRef + " (Secret in the agent's namespace, key \"password\")"
	}
	t.line(depth, "peerConfigRef: %s (exists), authSecretRef: %s", pc.Name, auth)
	if len(pc.Spec.Families) == 0 {
		t.line(depth, "families: ipv4/unicast, ipv6/unicast (default), advertising nothing")
		return
	}
	for _, f := range pc.Spec.Families {
		t.line(depth, "%s/%s: %s", f.AFI, f.SAFI, familyAdvertisements(f.Advertisements, ads))
	}
}

// familyAdvertisements says which BGPAdvertisements a family's selector picks, with
// the semantics of the agent: a nil selector advertises nothing, an empty one selects
// every BGPAdvertisement. The selector is evaluated by apimachinery, as in the agent.
func familyAdvertisements(sel *kbgpv1.LabelSelector, ads []kbgpv1.BGPAdvertisement) string {
	if sel == nil {
		return "no advertisements selector, advertises nothing"
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel.ToMetav1())
	if err != nil {
		return fmt.Sprintf("advertisements selector is invalid (%v), advertises nothing", err)
	}
	desc := parsed.String()
	if desc == "" {
		desc = "{} (every BGPAdvertisement)"
	}
	var matched []string
	for _, ad := range ads {
		if parsed.Matches(labels.Set(ad.Labels)) {
			matched = append(matched, fmt.Sprintf("%s [%s]", ad.Name, strings.Join(advertisementTypes(ad), ", ")))
		}
	}
	if len(matched) == 0 {
		return fmt.Sprintf("advertisements %s select no BGPAdvertisement", desc)
	}
	slices.Sort(matched)
	return fmt.Sprintf("advertisements %s select %s", desc, strings.Join(matched, ", "))
}

// advertisementTypes lists the distinct prefix sources of an advertisement, in order.
func advertisementTypes(ad kbgpv1.BGPAdvertisement) []string {
	var types []string
	for _, a := range ad.Spec.Advertisements {
		if !slices.Contains(types, string(a.AdvertisementType)) {
			types = append(types, string(a.AdvertisementType))
		}
	}
	return types
}

// orDefault shows def for an empty value.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
