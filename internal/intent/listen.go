package intent

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// listenAddresses are the addresses an instance with a localPort listens on: its
// listenAddresses, else the Node's InternalIP addresses — never every address of the
// node, which would accept sessions on its public side too. With neither, the
// instance does not listen, and the problem says why.
func listenAddresses(inst kbgpv1.BGPNodeInstance, node *corev1.Node, nodeConfig string) ([]netip.Addr, *kbgpv1.FailedResource) {
	var out []netip.Addr
	for _, a := range inst.ListenAddresses {
		if addr, err := netip.ParseAddr(string(a)); err == nil {
			out = append(out, addr.Unmap())
		}
	}
	if len(out) == 0 && node != nil {
		for _, a := range node.Status.Addresses {
			if addr, err := netip.ParseAddr(a.Address); err == nil && a.Type == corev1.NodeInternalIP {
				out = append(out, addr.Unmap())
			}
		}
	}
	if len(out) == 0 {
		return nil, &kbgpv1.FailedResource{Kind: "BGPNodeConfig", Name: nodeConfig, Message: fmt.Sprintf(
			"instance %d: localPort is set but listenAddresses is empty and the Node has no InternalIP address: not listening (set listenAddresses)", inst.LocalASN)}
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out), nil
}
