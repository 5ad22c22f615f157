package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The BMP test's link: the node is .1, FRR and the collector .2.
const (
	bmpNode      = "10.66.1.1"
	bmpRouter    = "10.66.1.2"
	bmpFRRPrefix = "10.66.9.0/24"
)

// TestBMP streams a speaker to pmacct's pmbmpd (Debian's pmacct), a real BMP
// collector listening in FRR's namespace: the node's instance names it with route
// monitoring All. The collector gets the peer-up of FRR's session, route monitoring of
// the prefix FRR sends (Adj-RIB-In) and of the node's pod CIDR (Loc-RIB), then the
// pod CIDR's withdrawal when its advertisement goes; the node's status shows the
// collector Up; removing the collector leaves the BGP session alone.
func TestBMP(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	nodeNS, frrNS := lab.Namespace("node"), lab.Namespace("frr")
	lab.Link(nodeNS, "to-frr", []string{bmpNode + "/30"}, frrNS, "to-node", []string{bmpRouter + "/30"})
	f := netlab.StartFRR(frrNS, netlab.FRRConfig{ASN: 65010, RouterID: bmpRouter, ListenAddrs: []string{bmpRouter},
		RawConfig: "neighbor " + bmpNode + " remote-as 65001\nneighbor " + bmpNode + " timers connect 1\naddress-family ipv4 unicast\n network " + bmpFRRPrefix + "\nexit-address-family\n"})
	collector := startPmbmpd(t, frrNS, bmpRouter, 11019)

	nodeName := "e2e-bmp-" + strings.Trim(lab.Prefix(), "-")
	ensureNamespace(t)
	pc, ad := podCIDRPeering(nodeName, nil)
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: bmpNode,
			BMPCollectors: []kbgpv1.BMPCollector{{Address: bmpRouter, RouteMonitoring: kbgpv1.BMPAll}}},
		Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "frr", PeerAddress: bmpRouter, PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}},
	}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4}}}
	create(t, node, pc, ad, nc)
	startAgent(t, lab, nodeNS, nodeName)
	f.WaitNeighborState(t, bmpNode, "Established", sessionTimeout)

	collector.wait(t, "the peer-up of FRR's session", func(m bmpMessage) bool {
		return m.Type == "peer_up" && m.PeerIP == bmpRouter
	})
	collector.wait(t, "route monitoring of the prefix FRR sends", func(m bmpMessage) bool {
		return m.Type == "route_monitor" && m.Prefix == bmpFRRPrefix && m.LogType == "update"
	})
	collector.wait(t, "route monitoring of the node's pod CIDR", func(m bmpMessage) bool {
		return m.Type == "route_monitor" && m.Prefix == podCIDR4 && m.LogType == "update"
	})
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		st := nodeStatus(t, nodeName)
		if len(st.BGPInstances) == 1 && len(st.BGPInstances[0].BMPCollectors) == 1 {
			c := st.BGPInstances[0].BMPCollectors[0]
			return c.Address == bmpRouter && c.Port == 11019 && c.State == kbgpv1.BMPStateUp, fmt.Sprintf("status: %+v", c)
		}
		return false, fmt.Sprintf("status: %+v", st.BGPInstances)
	})

	if err := server.Client.Delete(t.Context(), ad); err != nil {
		t.Fatal(err)
	}
	collector.wait(t, "the withdrawal of the node's pod CIDR", func(m bmpMessage) bool {
		return m.Type == "route_monitor" && m.Prefix == podCIDR4 && m.LogType == "withdraw"
	})

	drops := dropped(t, f, bmpNode)
	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) { nc.Spec.BGPInstances[0].BMPCollectors = nil })
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		st := nodeStatus(t, nodeName)
		return len(st.BGPInstances) == 1 && len(st.BGPInstances[0].BMPCollectors) == 0, fmt.Sprintf("status still lists %+v", st.BGPInstances)
	})
	if n, err := f.Neighbor(bmpNode); err != nil || n.State != "Established" || n.ConnectionsDropped != drops {
		t.Errorf("removing the collector touched the session: %s, connectionsDropped %d -> %d (%v)", n.State, drops, n.ConnectionsDropped, err)
	}
}

// pmbmpd is pmacct's BMP collector, logging every message as a JSON line.
type pmbmpd struct {
	log string
}

// bmpMessage is what the test reads of one pmbmpd log line.
type bmpMessage struct {
	Type    string `json:"bmp_msg_type"`
	LogType string `json:"log_type"`
	PeerIP  string `json:"peer_ip"`
	Prefix  string `json:"ip_prefix"`
}

// pmbmpdBinary is pmacct's collector: $KBGP_PMBMPD, or where hack/test-deps.sh unpacks
// Debian's pmacct package.
func pmbmpdBinary(t *testing.T) string {
	if p := os.Getenv("KBGP_PMBMPD"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, ".cache", "kbgp", "pmacct", "usr", "sbin", "pmbmpd")
}

// startPmbmpd runs pmbmpd in ns, listening on addr:port.
func startPmbmpd(t *testing.T, ns *netlab.Namespace, addr string, port int) *pmbmpd {
	t.Helper()
	dir := t.TempDir()
	c := &pmbmpd{log: filepath.Join(dir, "bmp.json")}
	conf := filepath.Join(dir, "pmbmpd.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "daemonize: false\nbmp_daemon_ip: %s\nbmp_daemon_port: %d\nbmp_daemon_msglog_file: %s\nbmp_daemon_msglog_output: json\nlogfile: %s\n",
		addr, port, c.log, filepath.Join(dir, "pmbmpd.log")), 0o600); err != nil {
		t.Fatal(err)
	}
	ns.Start("pmbmpd", pmbmpdBinary(t), "-f", conf)
	ns.WaitTCPListening(port, 10*time.Second)
	return c
}

// wait waits until the collector logged a message that matches.
func (c *pmbmpd) wait(t *testing.T, what string, match func(bmpMessage) bool) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		f, err := os.Open(c.log)
		if err != nil {
			return false, err.Error()
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		lines := 0
		for sc.Scan() {
			lines++
			var m bmpMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil && match(m) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no %s among the collector's %d messages", what, lines)
	})
}
