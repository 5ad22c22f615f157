package convert

import (
	"k8s.io/apimachinery/pkg/util/validation"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// The session settings below have the same names and bounds in a Cilium peering
// policy's neighbours and in a CiliumBGPPeerConfig, and in kbgp's BGPPeeringPolicy and
// BGPPeerConfig, so both Cilium conversions share them.

const maxASN = 4294967295

// podCIDRSource is the warning on a converted pod CIDR announcement. Cilium announces
// the pod CIDRs its own IPAM allocated to the node (CiliumNode spec.ipam.podCIDRs, its
// ExportPodCIDRReconciler), kbgp the Node's spec.podCIDRs; they are the same only when
// Cilium's IPAM takes them from the Node (mode kubernetes).
const podCIDRSource = "is converted, but Cilium announces the pod CIDRs of its own IPAM (CiliumNode spec.ipam.podCIDRs) and kbgp the Node's spec.podCIDRs, the same prefixes only in Cilium's IPAM mode kubernetes: compare " +
	"kubectl get ciliumnodes -o custom-columns=NAME:.metadata.name,CIDRS:.spec.ipam.podCIDRs with kubectl get nodes -o custom-columns=NAME:.metadata.name,CIDRS:.spec.podCIDRs " +
	"and, where they differ (IPAM mode cluster-pool), do not apply this announcement: it would announce prefixes your pods do not use"

// ciliumGracefulRestart converts gracefulRestart {enabled, restartTimeSeconds}.
func ciliumGracefulRestart(parent node) *kbgpv1.BGPGracefulRestart {
	gr := parent.obj("gracefulRestart")
	if !gr.ok {
		return nil
	}
	enabled, _ := gr.boolean("enabled")
	return &kbgpv1.BGPGracefulRestart{Enabled: enabled, RestartTimeSeconds: gr.int32In("restartTimeSeconds", 1, 4095)}
}

// ciliumAuthSecret converts authSecretRef. Cilium reads the Secret from its BGP
// secrets namespace, kbgp from its agent's: the name carries over, the Secret must be
// copied, and the warning says so.
func ciliumAuthSecret(parent node) *string {
	c := parent.child("authSecretRef")
	name, ok := c.asStr()
	if !ok || name == "" {
		return nil
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		c.warn("%q is not a Secret name: dropped", name)
		return nil
	}
	c.warn("is converted, but kbgp reads Secret %s from its agent's namespace (kbgp-system), not from Cilium's BGP secrets namespace (kube-system by default): copy it there, with the password under the key password", name)
	return &name
}

// ciliumFamilies reads a families list, keeping the families kbgp negotiates (ipv4 and
// ipv6 unicast) and calling each for the item of each kept family.
func ciliumFamilies(parent node, each func(item node, afi kbgpv1.AFI)) {
	items := parent.list("families")
	kept := map[kbgpv1.AFI]bool{}
	for _, item := range items {
		if !item.isObj() {
			continue
		}
		afi, _ := item.str("afi")
		safi, _ := item.str("safi")
		switch {
		case (afi != "ipv4" && afi != "ipv6") || safi != "unicast":
			item.warn("%s/%s: kbgp negotiates ipv4/unicast and ipv6/unicast only: dropped", afi, safi)
			item.consume()
		case kept[kbgpv1.AFI(afi)]:
			item.warn("%s/%s is listed twice: dropped", afi, safi)
			item.consume()
		default:
			kept[kbgpv1.AFI(afi)] = true
			each(item, kbgpv1.AFI(afi))
		}
	}
	if len(items) > 0 && len(kept) == 0 {
		parent.child("families").warn("lists no family kbgp negotiates: kbgp's default, ipv4/unicast and ipv6/unicast, applies")
	}
}
