package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestPerNodeASNFromOverride: one cluster config (local ASN 65001) selects two nodes on
// a segment with FRR, which accepts any external ASN. An override gives the second node
// its own ASN, as an eBGP fabric with an AS per node does: on the wire FRR sees 65001
// from the first node and 65102 from the second, in OPEN and in each pod CIDR's AS
// path. Removing the override brings the second node back to 65001; the first node's
// session never drops.
func TestPerNodeASNFromOverride(t *testing.T) {
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	frrNS, ctl := lab.Namespace("frr"), lab.Namespace("ctl")
	const frrAddr = "10.76.0.1"
	br.Attach(frrNS, "to-seg", []string{frrAddr + "/24"})
	label := "e2e-asn-" + strings.Trim(lab.Prefix(), "-")
	var cfg strings.Builder
	nodes, addrs, cidrs := make([]string, 2), make([]string, 2), make([]string, 2)
	nsOf := make([]*netlab.Namespace, 2)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("%s-%d", label, i+1)
		addrs[i] = fmt.Sprintf("10.76.0.%d", 11+i)
		cidrs[i] = fmt.Sprintf("10.76.%d.0/24", 10+i)
		nsOf[i] = lab.Namespace(fmt.Sprintf("node%d", i+1))
		br.Attach(nsOf[i], "to-seg", []string{addrs[i] + "/24"})
		fmt.Fprintf(&cfg, "neighbor %s remote-as external\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", addrs[i], addrs[i], addrs[i])
	}
	f := netlab.StartFRR(frrNS, netlab.FRRConfig{ASN: 65010, RouterID: frrAddr, ListenAddrs: []string{frrAddr}, RawConfig: cfg.String()})

	ensureNamespace(t)
	pc, ad := podCIDRPeering(label, nil)
	cc := &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: label}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{label: "in"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${NODE_IP}"},
			Peers:               []kbgpv1.BGPPeer{{Name: "frr", PeerAddress: frrAddr, PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}},
		}},
	}}
	ov := &kbgpv1.BGPNodeConfigOverride{ObjectMeta: metav1.ObjectMeta{Name: nodes[1]}, Spec: kbgpv1.BGPNodeConfigOverrideSpec{
		NodeRef: nodes[1], BGPInstances: []kbgpv1.BGPInstanceOverride{{LocalASN: 65001, NodeLocalASN: 65102}}}}
	create(t, pc, ad, cc, ov)
	for i, name := range nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{label: "in"}}, Spec: corev1.NodeSpec{PodCIDRs: []string{cidrs[i]}}}
		create(t, node)
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: addrs[i]}}
		if err := server.Client.Status().Update(t.Context(), node); err != nil {
			t.Fatal(err)
		}
	}
	startOperatorProcess(t, lab, ctl)
	for i, name := range nodes {
		startAgent(t, lab, nsOf[i], name)
	}

	wantASN := func(i int, asn uint32) {
		t.Helper()
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			n, err := f.Neighbor(addrs[i])
			return err == nil && n.State == "Established" && n.RemoteAS == asn,
				fmt.Sprintf("FRR's neighbour %s: %s, remote AS %d (%v), want Established from AS %d", addrs[i], n.State, n.RemoteAS, err, asn)
		})
		f.WaitRoute(t, "ipv4", cidrs[i], sessionTimeout, func(r frr.Route) bool { return r.ASPath == fmt.Sprint(asn) })
	}
	wantASN(0, 65001)
	wantASN(1, 65102)
	drops := dropped(t, f, addrs[0])

	if err := server.Client.Delete(t.Context(), ov); err != nil && client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	wantASN(1, 65001)
	if got := dropped(t, f, addrs[0]); got != drops {
		t.Errorf("the first node's session dropped (%d -> %d) when the second node's ASN changed", drops, got)
	}
}
