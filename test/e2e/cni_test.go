package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	types100 "github.com/containernetworking/cni/pkg/types/100"

	"kbgp.io/kbgp/internal/cni"
	"kbgp.io/kbgp/internal/podnet"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestCNIPluginWithDebianPlugins drives the node's conflist (bridge cbr0, host-local with
// one range per pod CIDR and no gateway, portmap, then kbgp-cni: the built
// cmd/kbgp-cni) through libcni as a container runtime does, from inside a node
// namespace, for pods that are namespaces of their own. Debian's plugins run for real.
func TestCNIPluginWithDebianPlugins(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	node := lab.Namespace("node")
	// The node's configuration as the agent writes it, its state in temporary
	// directories.
	stateDir, confDir := t.TempDir(), t.TempDir()
	conf, err := podnet.Conflist(podnet.Config{
		PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.9.0/24"), netip.MustParsePrefix("2001:db8:9::/64")},
		Bridge:   "cbr0", MTU: 1500, IPAMDataDir: t.TempDir(), StateDir: stateDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(confDir, podnet.FileName)
	if err := os.WriteFile(confPath, conf, 0o644); err != nil {
		t.Fatal(err)
	}
	rt := newCNIRuntime(t, node, confPath)
	newPod, check, del := rt.newPod, rt.check, rt.del
	add := func(p *cniPod) {
		t.Helper()
		p.ip4, p.ip6 = podAddresses(t, p, rt.add(p))
	}
	lab.AddDiagnostic("node ebtables", func() string {
		out, _ := node.Exec("ebtables", "-t", "filter", "-L", "--Lc")
		return out
	})
	lab.AddDiagnostic("node links and addresses", func() string {
		out, _ := node.IP("addr")
		return out
	})

	pod1, pod2 := newPod("pod1"), newPod("pod2")
	add(pod1)
	add(pod2)
	if pod1.ip4 == pod2.ip4 || pod1.ip6 == pod2.ip6 {
		t.Fatalf("both pods got the same address: %s %s / %s %s", pod1.ip4, pod1.ip6, pod2.ip4, pod2.ip6)
	}

	// The gateways are what host-local returned (no gateway configured: the ranges'
	// first addresses), on cbr0 in the node namespace.
	wantGWs := map[netip.Addr]netip.Prefix{
		netip.MustParseAddr("10.244.9.1"):    netip.MustParsePrefix("10.244.9.0/24"),
		netip.MustParseAddr("2001:db8:9::1"): netip.MustParsePrefix("2001:db8:9::/64"),
	}
	brAddrs := node.MustExec("ip", "-o", "addr", "show", "dev", "cbr0")
	for g, sub := range wantGWs {
		if !strings.Contains(brAddrs, " "+g.String()+"/"+strconv.Itoa(sub.Bits())+" ") {
			t.Errorf("cbr0 in the node namespace lacks gateway %s:\n%s", g, brAddrs)
		}
	}

	// ebtables: per gateway, ACCEPT from the gateway before DROP from the subnet, for the
	// bridge's MAC, and a single jump from OUTPUT; records for the agent.
	mac := bridgeMAC(t, node)
	wantRules := dedupRules(mac, wantGWs)
	if diff := diffRules(wantRules, listDedup(t, node)); diff != "" {
		t.Errorf("KBGP-DEDUP in the node namespace: %s", diff)
	}
	if n := strings.Count(node.MustExec("ebtables", "-t", "filter", "-L", "OUTPUT"), "-j KBGP-DEDUP"); n != 1 {
		t.Errorf("OUTPUT jumps to KBGP-DEDUP %d times, want 1", n)
	}
	checkRecords(t, stateDir, wantGWs, mac)

	// Pod to pod on the bridge, both families; the node (from the gateway address) to the
	// pod, both families.
	pod2.ns.Start("echo4", "socat", "TCP4-LISTEN:8080,fork,reuseaddr", "SYSTEM:echo pod2")
	pod2.ns.Start("echo6", "socat", "TCP6-LISTEN:8086,fork,reuseaddr,ipv6only=1", "SYSTEM:echo pod2")
	pod2.ns.WaitTCPListening(8080, 10*time.Second)
	pod2.ns.WaitTCPListening(8086, 10*time.Second)
	target4 := "TCP:" + pod2.ip4.String() + ":8080"
	target6 := "TCP:[" + pod2.ip6.String() + "]:8086"
	for _, from := range []*netlab.Namespace{pod1.ns, node} {
		tcpAnswers(t, from, target4, "pod2")
		tcpAnswers(t, from, target6, "pod2")
	}

	// The DROP rules work: what the node sends to a pod from another address of the pod
	// subnet (a copy of pod traffic, as far as the rules can tell) never reaches it.
	node.AddAddr("cbr0", "10.244.9.200/32")
	node.AddAddr("cbr0", "2001:db8:9::200/128")
	for _, target := range []string{target4 + ",bind=10.244.9.200", target6 + ",bind=[2001:db8:9::200]"} {
		if out, err := node.ExecTimeout(10*time.Second, "socat", "-T2", "-", target+",connect-timeout=2"); err == nil {
			t.Errorf("the node reached pod2 from a non-gateway pod-subnet address (%s): %q", target, out)
		}
	}
	counted := listDedupCounters(t, node)
	for _, fam := range []string{"--ip-src 10.244.9.0/24 -j DROP", "--ip6-src 2001:db8:9::/64 -j DROP"} {
		if counted[fam] == 0 {
			t.Errorf("the DROP rule %q counted no frame: %v", fam, counted)
		}
	}
	node.DelAddr("cbr0", "10.244.9.200/32")
	node.DelAddr("cbr0", "2001:db8:9::200/128")

	// Same-node Service traffic still flows: the node DNATs a Service address to pod2 as
	// kube-proxy does, and with br_netfilter calling iptables for bridged traffic (what
	// kube-proxy needs on a bridge; set here in the node namespace only) the DNATed
	// frames are bridged with pod1's source MAC, so no DROP rule sees them.
	node.MustExec("sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1", "net.bridge.bridge-nf-call-ip6tables=1")
	node.MustExec("iptables", "-t", "nat", "-A", "PREROUTING", "-d", "10.96.0.10/32", "-p", "tcp", "--dport", "80", "-j", "DNAT", "--to-destination", pod2.ip4.String()+":8080")
	node.MustExec("ip6tables", "-t", "nat", "-A", "PREROUTING", "-d", "2001:db8:96::10/128", "-p", "tcp", "--dport", "80", "-j", "DNAT", "--to-destination", "["+pod2.ip6.String()+"]:8086")
	tcpAnswers(t, pod1.ns, "TCP:10.96.0.10:80", "pod2")
	tcpAnswers(t, pod1.ns, "TCP:[2001:db8:96::10]:80", "pod2")
	after := listDedupCounters(t, node)
	for _, fam := range []string{"--ip-src 10.244.9.0/24 -j DROP", "--ip6-src 2001:db8:9::/64 -j DROP"} {
		if after[fam] != counted[fam] {
			t.Errorf("same-node Service traffic hit the DROP rule %q (%d frames before, %d after)", fam, counted[fam], after[fam])
		}
	}

	// CHECK passes for both pods.
	for _, p := range []*cniPod{pod1, pod2} {
		if err := check(p); err != nil {
			t.Errorf("CHECK %s: %v", p.ns.Short, err)
		}
	}

	// DEL of one pod: the shared rules and records stay, the other pod stays reachable.
	before := listDedup(t, node)
	del(pod1)
	if out, err := pod1.ns.IP("link", "show", "eth0"); err == nil {
		t.Errorf("pod1 still has eth0 after DEL:\n%s", out)
	}
	if diff := diffRules(before, listDedup(t, node)); diff != "" {
		t.Errorf("DEL of pod1 changed KBGP-DEDUP: %s", diff)
	}
	if n := strings.Count(node.MustExec("ebtables", "-t", "filter", "-L", "OUTPUT"), "-j KBGP-DEDUP"); n != 1 {
		t.Errorf("after DEL, OUTPUT jumps to KBGP-DEDUP %d times, want 1", n)
	}
	checkRecords(t, stateDir, wantGWs, mac)
	tcpAnswers(t, node, target4, "pod2")
	tcpAnswers(t, node, target6, "pod2")
	// The bridge plugin set cbr0's MAC when it created it, so the MAC does not follow the
	// ports as they come and go, and the rules still match the bridge.
	if now := bridgeMAC(t, node); now != mac {
		t.Errorf("cbr0's MAC went from %s to %s with pod1's port", mac, now)
	}
	if err := check(pod2); err != nil {
		t.Errorf("CHECK pod2 after pod1's DEL: %v", err)
	}

	// DEL again succeeds, as the CNI spec asks: the pod's interface is gone and libcni
	// has no cached result left, so kbgp-cni gets no prevResult either.
	del(pod1)

	// A third pod: the same rules, no duplicates; CHECK passes for the old pod and the
	// new one; the pods reach each other.
	pod3 := newPod("pod3")
	add(pod3)
	if diff := diffRules(dedupRules(mac, wantGWs), listDedup(t, node)); diff != "" {
		t.Errorf("KBGP-DEDUP after pod3's ADD: %s", diff)
	}
	checkRecords(t, stateDir, wantGWs, mac)
	for _, p := range []*cniPod{pod2, pod3} {
		if err := check(p); err != nil {
			t.Errorf("CHECK %s: %v", p.ns.Short, err)
		}
	}
	pod3.ns.Start("echo4", "socat", "TCP4-LISTEN:8080,fork,reuseaddr", "SYSTEM:echo pod3")
	pod3.ns.WaitTCPListening(8080, 10*time.Second)
	tcpAnswers(t, pod2.ns, "TCP:"+pod3.ip4.String()+":8080", "pod3")
	for _, p := range []*cniPod{pod2, pod3} {
		del(p)
	}
}

// podAddresses checks that the result gives the pod one IPv4 and one IPv6 address in the
// pod CIDRs, each with a gateway, and that the pod's eth0 has them.
func podAddresses(t *testing.T, p *cniPod, res *types100.Result) (ip4, ip6 netip.Addr) {
	t.Helper()
	cidr4, cidr6 := netip.MustParsePrefix("10.244.9.0/24"), netip.MustParsePrefix("2001:db8:9::/64")
	for _, ipc := range res.IPs {
		a, _ := netip.AddrFromSlice(ipc.Address.IP)
		a = a.Unmap()
		if ipc.Gateway == nil {
			t.Errorf("%s: the result has no gateway for %s", p.ns.Short, a)
		}
		switch {
		case cidr4.Contains(a):
			ip4 = a
		case cidr6.Contains(a):
			ip6 = a
		default:
			t.Errorf("%s: address %s outside the pod CIDRs", p.ns.Short, a)
		}
	}
	if !ip4.IsValid() || !ip6.IsValid() {
		t.Fatalf("%s: want an IPv4 and an IPv6 address, the result has %v", p.ns.Short, res.IPs)
	}
	out := p.ns.MustExec("ip", "-o", "addr", "show", "dev", "eth0")
	for _, want := range []string{"inet " + ip4.String() + "/24 ", "inet6 " + ip6.String() + "/64 "} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: eth0 lacks %q:\n%s", p.ns.Short, want, out)
		}
	}
	return ip4, ip6
}

// bridgeMAC is cbr0's MAC address in the node namespace now.
func bridgeMAC(t *testing.T, node *netlab.Namespace) string {
	t.Helper()
	out, err := node.IP("-j", "link", "show", "cbr0")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var links []struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -j link show cbr0: %v: %s", err, out)
	}
	hw, err := net.ParseMAC(links[0].Address)
	if err != nil {
		t.Fatal(err)
	}
	return hw.String()
}

// dedupRules are the KBGP-DEDUP rules wanted for gws on a bridge with mac, as ebtables
// lists them (ACCEPTs first).
func dedupRules(mac string, gws map[netip.Addr]netip.Prefix) []string {
	var accept, drop []string
	for g, sub := range gws {
		fam, src := "IPv4", "--ip-src"
		if g.Is6() {
			fam, src = "IPv6", "--ip6-src"
		}
		common := fmt.Sprintf("-p %s -s %s -o veth+ %s ", fam, mac, src)
		accept = append(accept, common+g.String()+" -j ACCEPT")
		drop = append(drop, common+sub.String()+" -j DROP")
	}
	slices.Sort(accept)
	slices.Sort(drop)
	return append(accept, drop...)
}

var ruleMAC = regexp.MustCompile(`-s ([0-9A-Fa-f:]+) `)

// listDedup lists KBGP-DEDUP in the node namespace, one rule a line, MACs normalised.
func listDedup(t *testing.T, node *netlab.Namespace) []string {
	t.Helper()
	out := node.MustExec("ebtables", "-t", "filter", "-L", cni.DedupChain)
	var rules []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "-") {
			continue
		}
		rules = append(rules, normaliseMAC(line))
	}
	return rules
}

func normaliseMAC(rule string) string {
	return ruleMAC.ReplaceAllStringFunc(rule, func(m string) string {
		hw, err := net.ParseMAC(strings.TrimSpace(strings.TrimPrefix(m, "-s ")))
		if err != nil {
			return m
		}
		return "-s " + hw.String() + " "
	})
}

var pcnt = regexp.MustCompile(`(-p .*-j [A-Z]+) , pcnt = (\d+)`)

// listDedupCounters maps the tail of each KBGP-DEDUP rule (from the address match on)
// to its packet count.
func listDedupCounters(t *testing.T, node *netlab.Namespace) map[string]int {
	t.Helper()
	out := node.MustExec("ebtables", "-t", "filter", "-L", cni.DedupChain, "--Lc")
	counts := map[string]int{}
	for _, m := range pcnt.FindAllStringSubmatch(out, -1) {
		rule := m[1]
		if i := strings.Index(rule, "--ip"); i >= 0 {
			rule = rule[i:]
		}
		n, _ := strconv.Atoi(m[2])
		counts[rule] += n
	}
	return counts
}

// diffRules says how got differs from want: ACCEPTs in any order, then DROPs in any
// order, each rule once.
func diffRules(want, got []string) string {
	firstDrop := len(got)
	for i, r := range got {
		if strings.HasSuffix(r, "-j DROP") {
			firstDrop = i
			break
		}
	}
	for _, r := range got[firstDrop:] {
		if strings.HasSuffix(r, "-j ACCEPT") {
			return fmt.Sprintf("an ACCEPT after a DROP: %q", got)
		}
	}
	w, g := slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(got))
	if !slices.Equal(w, g) {
		return fmt.Sprintf("\nwant %q\n got %q", want, got)
	}
	return ""
}

// checkRecords checks the plugin's gateway records, read as the agent reads them.
func checkRecords(t *testing.T, stateDir string, gws map[netip.Addr]netip.Prefix, mac string) {
	t.Helper()
	recs, err := cni.ReadGateways(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(gws) {
		t.Errorf("%d gateway records, want %d: %+v", len(recs), len(gws), recs)
	}
	for _, r := range recs {
		if sub, ok := gws[r.Gateway]; !ok || r.Subnet != sub || r.Bridge != "cbr0" || r.BridgeMAC != mac {
			t.Errorf("record %+v, want subnet %s, bridge cbr0, MAC %s", r, sub, mac)
		}
		if _, err := os.Stat(filepath.Join(stateDir, "gateways", cni.RecordName(r.Gateway))); err != nil {
			t.Error(err)
		}
	}
}
