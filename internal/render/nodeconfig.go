package render

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Node is what rendering needs of a Node: its identity. The operator watches Node
// metadata only, so this is filled from metav1.PartialObjectMetadata.
type Node struct {
	Name string
	UID  types.UID
}

// NodeConfig renders the BGPNodeConfig of node from the winning cluster config and the
// applied override (nil when none). The second result lists override entries that match
// nothing in the cluster config, for the node's status.
func NodeConfig(cc *kbgpv1.BGPClusterConfig, node Node, ov *kbgpv1.BGPNodeConfigOverride) (*kbgpv1.BGPNodeConfig, []kbgpv1.FailedResource) {
	nc := &kbgpv1.BGPNodeConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: kbgpv1.GroupVersion.String(), Kind: "BGPNodeConfig"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            node.Name,
			Labels:          map[string]string{kbgpv1.ClusterConfigLabel: cc.Name},
			OwnerReferences: []metav1.OwnerReference{NodeOwnerReference(node)},
		},
	}
	for _, inst := range cc.Spec.BGPInstances {
		ni := kbgpv1.BGPNodeInstance{BGPInstanceSettings: *inst.BGPInstanceSettings.DeepCopy()}
		for _, p := range inst.Peers {
			ni.Peers = append(ni.Peers, kbgpv1.BGPNodePeer{BGPPeer: *p.DeepCopy()})
		}
		nc.Spec.BGPInstances = append(nc.Spec.BGPInstances, ni)
	}
	if ov == nil {
		return nc, nil
	}
	return nc, applyOverride(nc, ov)
}

// NodeOwnerReference makes the Node the owner of its BGPNodeConfig so the garbage
// collector deletes the config with the node. It does not block the node's deletion.
func NodeOwnerReference(node Node) metav1.OwnerReference {
	blockOwnerDeletion := false
	return metav1.OwnerReference{
		APIVersion:         corev1.SchemeGroupVersion.String(),
		Kind:               "Node",
		Name:               node.Name,
		UID:                node.UID,
		BlockOwnerDeletion: &blockOwnerDeletion,
	}
}

// applyOverride applies ov to nc in place: instances matched by localASN, peers by name.
// Local ASNs are replaced last, so every entry is matched against the cluster config's
// ASNs whatever the order of the override's entries.
func applyOverride(nc *kbgpv1.BGPNodeConfig, ov *kbgpv1.BGPNodeConfigOverride) []kbgpv1.FailedResource {
	var problems []kbgpv1.FailedResource
	asns := map[*kbgpv1.BGPNodeInstance]int64{}
	for _, oi := range ov.Spec.BGPInstances {
		inst := findInstance(nc, oi.LocalASN)
		if inst == nil {
			problems = append(problems, overrideProblem(ov.Name,
				fmt.Sprintf("instance with localASN %d is not in the node's cluster config", oi.LocalASN)))
			continue
		}
		if oi.NodeLocalASN != 0 && oi.NodeLocalASN != oi.LocalASN {
			asns[inst] = oi.NodeLocalASN
		}
		if oi.RouterID != "" {
			inst.RouterID = string(oi.RouterID)
		}
		if oi.LocalPort != nil {
			inst.LocalPort = ptrTo(*oi.LocalPort)
		}
		if len(oi.ListenAddresses) > 0 {
			inst.ListenAddresses = slices.Clone(oi.ListenAddresses)
		}
		for _, op := range oi.Peers {
			peer := findPeer(inst, op.Name)
			if peer == nil {
				problems = append(problems, overrideProblem(ov.Name,
					fmt.Sprintf("peer %s of instance %d is not in the node's cluster config", op.Name, oi.LocalASN)))
				continue
			}
			if op.LocalAddress != "" {
				peer.LocalAddress = op.LocalAddress
			}
			if op.LocalPort != nil {
				peer.LocalPort = ptrTo(*op.LocalPort)
			}
		}
	}
	return append(problems, replaceLocalASNs(nc, ov.Name, asns)...)
}

// replaceLocalASNs gives instances their per-node ASN unless another instance of the
// node keeps or takes the same ASN: instances are keyed by localASN, so two with one
// ASN would make the BGPNodeConfig invalid.
func replaceLocalASNs(nc *kbgpv1.BGPNodeConfig, override string, asns map[*kbgpv1.BGPNodeInstance]int64) []kbgpv1.FailedResource {
	final := map[int64]int{}
	for i := range nc.Spec.BGPInstances {
		inst := &nc.Spec.BGPInstances[i]
		asn, ok := asns[inst]
		if !ok {
			asn = inst.LocalASN
		}
		final[asn]++
	}
	var problems []kbgpv1.FailedResource
	for i := range nc.Spec.BGPInstances {
		inst := &nc.Spec.BGPInstances[i]
		asn, ok := asns[inst]
		if !ok {
			continue
		}
		if final[asn] > 1 {
			problems = append(problems, overrideProblem(override,
				fmt.Sprintf("nodeLocalASN %d of instance %d is the ASN of another instance of the node: not applied", asn, inst.LocalASN)))
			continue
		}
		inst.LocalASN = asn
	}
	return problems
}

func findInstance(nc *kbgpv1.BGPNodeConfig, asn int64) *kbgpv1.BGPNodeInstance {
	for i := range nc.Spec.BGPInstances {
		if nc.Spec.BGPInstances[i].LocalASN == asn {
			return &nc.Spec.BGPInstances[i]
		}
	}
	return nil
}

func findPeer(inst *kbgpv1.BGPNodeInstance, name string) *kbgpv1.BGPNodePeer {
	for i := range inst.Peers {
		if inst.Peers[i].Name == name {
			return &inst.Peers[i]
		}
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }
