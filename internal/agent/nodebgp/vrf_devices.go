package nodebgp

import (
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/sanitize"
)

// EventVRFNotFound is the Warning event reason on the BGPNodeConfig when a peer's VRF
// device does not exist on the node.
const EventVRFNotFound = "VRFNotFound"

// deviceRecheckInterval is how often the agent looks again for VRF devices that were
// missing, and for routers on interfaces that had none. Neither is an API event the
// agent could watch, so a peer in a VRF created later, or over a link whose router
// appears later, comes up within this interval.
const deviceRecheckInterval = 15 * time.Second

// vrfDevices looks up, in the agent's network namespace (the node's, since the agent
// runs with host networking), the VRF devices the node config names, and reports the
// ones that appear missing. Only the reconciler goroutine uses it.
type vrfDevices struct {
	recorder record.EventRecorder
	logger   *slog.Logger
	// missing is the result of the last check; a device reported there is not reported
	// again until it was found in between.
	missing map[string]struct{}
}

// check returns the VRF devices of nc that do not exist, and records a Warning event
// and a log line for each one that was not missing at the last check.
func (d *vrfDevices) check(nc *kbgpv1.BGPNodeConfig) map[string]struct{} {
	missing := map[string]struct{}{}
	peers := vrfPeers(nc)
	for _, vrf := range slices.Sorted(maps.Keys(peers)) {
		if _, err := net.InterfaceByName(vrf); err == nil {
			continue
		}
		missing[vrf] = struct{}{}
		if _, known := d.missing[vrf]; known {
			continue
		}
		msg := fmt.Sprintf("VRF device %q does not exist on this node; not started: %s",
			sanitize.Line(vrf), sanitize.Line(strings.Join(peers[vrf], ", ")))
		d.logger.Warn("VRF device not found", "vrf", vrf, "peers", peers[vrf])
		if d.recorder != nil {
			d.recorder.Event(nc, corev1.EventTypeWarning, EventVRFNotFound, msg)
		}
	}
	d.missing = missing
	return missing
}

// retryAfter is when the missing devices are looked for again; 0 when none is missing.
func (d *vrfDevices) retryAfter() time.Duration {
	if len(d.missing) == 0 {
		return 0
	}
	return deviceRecheckInterval
}

// vrfPeers names the peers of each non-default VRF of nc, as "peer NAME of instance
// ASN", in spec order.
func vrfPeers(nc *kbgpv1.BGPNodeConfig) map[string][]string {
	out := map[string][]string{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			if p.VRF != "" {
				out[p.VRF] = append(out[p.VRF], fmt.Sprintf("peer %s of instance %d", p.Name, inst.LocalASN))
			}
		}
	}
	return out
}
