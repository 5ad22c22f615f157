package lab

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

func TestReportWrite(t *testing.T) {
	nc := kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-2"}}
	nc.Status.BGPInstances = []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, RouterID: "10.255.99.200",
		RouterIDSource: kbgpv1.RouterIDSourceHash, Peers: []kbgpv1.BGPNodePeerStatus{
			{Name: "upstream", PeeringState: kbgpv1.PeeringStateEstablished, RoutesAdvertised: 2}}}}
	pending := kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-1"}}
	pending.Status.BGPInstances = []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{{Name: "upstream"}}}}
	r := report{
		nodeConfigs: []kbgpv1.BGPNodeConfig{nc, pending},
		routes: []bgp.ReceivedRoute{{Neighbor: netip.MustParseAddr("127.0.1.2"), Prefix: netip.MustParsePrefix("100.64.0.10/32"),
			NextHop: netip.MustParseAddr("127.0.1.2"), ASPath: []uint32{65001},
			Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 200}}}},
		problems:   []string{"missing 10.244.1.0/24 from 127.0.1.1"},
		kubeconfig: "/tmp/lab/kubeconfig",
		upstream:   "AS64512 at 127.0.0.1:1790",
	}
	var out bytes.Buffer
	r.write(&out)
	want := `NODE        INSTANCE  ROUTER-ID      SOURCE               PEER      STATE        ADVERTISED
lab-node-1  65001     -              -                    upstream  -            0
lab-node-2  65001     10.255.99.200  hash-from-node-name  upstream  Established  2

Routes received by the upstream router (AS64512 at 127.0.0.1:1790):
FROM       PREFIX          NEXT-HOP   AS-PATH  COMMUNITIES
127.0.1.2  100.64.0.10/32  127.0.1.2  65001    65001:200

Not as expected:
  missing 10.244.1.0/24 from 127.0.1.1

Kubeconfig: /tmp/lab/kubeconfig
`
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("report:\n%s\nwant it to start with:\n%s", out.String(), want)
	}
}
