package intent

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// GracefulShutdownCommunity is RFC 8326's GRACEFUL_SHUTDOWN, 65535:0.
const GracefulShutdownCommunity = 0xFFFF0000

// defaultShutdownWait is gracefulShutdown.waitSeconds' default.
const defaultShutdownWait = 30 * time.Second

// Draining reports whether the node is cordoned, which starts graceful shutdown on the
// peers that enable it.
func Draining(node *corev1.Node) bool { return node != nil && node.Spec.Unschedulable }

// NetworkUnavailable reports whether the Node's NetworkUnavailable condition is True
// (set by a network plugin or cloud controller until the node's pod network works):
// such a node announces no Service address, as traffic to it would reach no pod.
func NetworkUnavailable(node *corev1.Node) bool {
	if node == nil {
		return false
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeNetworkUnavailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// gracefulShutdown returns how long the peer's graceful-shutdown paths must be out
// before the agent may stop, and whether the peer does graceful shutdown at all.
func gracefulShutdown(in Input, np kbgpv1.BGPNodePeer) (time.Duration, bool) {
	if np.PeerConfigRef == nil {
		return 0, false
	}
	pc, ok := in.PeerConfigs[np.PeerConfigRef.Name]
	if !ok || pc.Spec.GracefulShutdown == nil || !pc.Spec.GracefulShutdown.Enabled {
		return 0, false
	}
	if w := pc.Spec.GracefulShutdown.WaitSeconds; w != nil {
		return time.Duration(*w) * time.Second, true
	}
	return defaultShutdownWait, true
}

// withGracefulShutdown marks what a draining peer is sent: the GRACEFUL_SHUTDOWN
// community on every path, and local preference 0 for an iBGP peer, which RFC 8326 asks
// of the sender there since an iBGP router does not act on the community itself.
func withGracefulShutdown(pods []bgp.Path, rules []serviceRule, ibgp bool) {
	mark := func(a bgp.PathAttributes) bgp.PathAttributes {
		a.Communities = append(a.Communities, GracefulShutdownCommunity)
		if ibgp {
			zero := uint32(0)
			a.LocalPreference = &zero
		}
		return a.Normalised()
	}
	for i := range pods {
		pods[i].Attributes = mark(pods[i].Attributes)
	}
	for i := range rules {
		rules[i].attrs = mark(rules[i].attrs)
	}
}
