package nodebgp

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// noSuchDevice is an interface name no test machine has.
const noSuchDevice = "kbgp-nodev0"

func vrfNodeConfig(vrfs ...string) *kbgpv1.BGPNodeConfig {
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Spec: kbgpv1.BGPNodeConfigSpec{
		BGPInstances: []kbgpv1.BGPNodeInstance{{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001}}},
	}}
	for i, vrf := range vrfs {
		nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{
			Name: []string{"tor-a", "tor-b", "tor-c"}[i], PeerAddress: "10.77.0.2", PeerASN: 65077, VRF: vrf}})
	}
	return nc
}

// TestVRFDevicesCheck looks devices up for real: the loopback exists in every network
// namespace, noSuchDevice in none.
func TestVRFDevicesCheck(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	d := &vrfDevices{recorder: rec, logger: slog.New(slog.DiscardHandler)}

	missing := d.check(vrfNodeConfig("lo", noSuchDevice, ""))
	if _, ok := missing[noSuchDevice]; !ok || len(missing) != 1 {
		t.Fatalf("missing = %v, want only %s (lo exists, \"\" is the default VRF)", missing, noSuchDevice)
	}
	if d.retryAfter() != deviceRecheckInterval {
		t.Fatalf("retryAfter = %s with a missing device, want %s", d.retryAfter(), deviceRecheckInterval)
	}
	select {
	case e := <-rec.Events:
		want := `Warning VRFNotFound VRF device "kbgp-nodev0" does not exist on this node; not started: peer tor-b of instance 65001`
		if e != want {
			t.Fatalf("event %q, want %q", e, want)
		}
	default:
		t.Fatal("no event for the missing device")
	}

	d.check(vrfNodeConfig("lo", noSuchDevice))
	if len(rec.Events) != 0 {
		t.Fatalf("a device still missing was reported again: %q", <-rec.Events)
	}

	if missing := d.check(vrfNodeConfig("lo")); len(missing) != 0 || d.retryAfter() != 0 {
		t.Fatalf("without the missing device: missing %v, retryAfter %s; want none and no recheck", missing, d.retryAfter())
	}
	d.check(vrfNodeConfig(noSuchDevice))
	if e := <-rec.Events; !strings.Contains(e, "peer tor-a of instance 65001") {
		t.Fatalf("a device missing again after it was not is not reported again: %q", e)
	}
}

func TestRequeueAfterTakesTheSoonest(t *testing.T) {
	now := time.Now()
	withCIDRs := &corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.1.0/24"}}}
	r := &Reconciler{routerIDs: &routerIDs{}, vrfs: &vrfDevices{}, ifaces: &interfaceNeighbors{}, gateways: &defaultGateways{}}
	if d := r.requeueAfter(withCIDRs, now); d != 0 {
		t.Fatalf("nothing pending: requeue after %s, want none", d)
	}
	if d := r.requeueAfter(nil, now); d != nodeCacheTTL {
		t.Fatalf("no Node: requeue after %s, want %s", d, nodeCacheTTL)
	}
	r.vrfs.missing = map[string]struct{}{noSuchDevice: {}}
	if d := r.requeueAfter(nil, now); d != deviceRecheckInterval {
		t.Fatalf("missing VRF device and no Node: requeue after %s, want %s", d, deviceRecheckInterval)
	}
}
