package e2e

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The prefix red's FRR sends the node, with its community.
const (
	redSent          = "10.77.9.0/24"
	redSentCommunity = "65077:7"
)

// TestAgentRoutesAreWhatFRRHas asks the node's agent with `kubectl bgp routes`
// (--agent-url: the test process is not in the node's namespace, so the API server's
// pod proxy cannot reach the agent; test/cluster runs the proxy path) as a caller who
// cannot read Secrets, on the VRF topology: red (TCP MD5 from a Secret) is sent the
// pod CIDR with standard and large communities, blue a LoadBalancer address, and a
// third peer is in a VRF device the node does not have. --advertised prints, per peer,
// exactly the prefixes and communities each FRR received, and nothing for the peer the
// node cannot run; --received prints what red's FRR sends. --computed, for contrast,
// lists the missing VRF's peer and says it could not read the Secret. `kubectl bgp
// explain service` says, from the agent, that blue is sent the LoadBalancer address
// and red is not.
func TestAgentRoutesAreWhatFRRHas(t *testing.T) {
	independent(t)
	tp := newVRFTopology(t)
	n := tp.nodeName
	pods := &kbgpv1.BGPAdvertisement{}
	if err := server.Client.Get(context.Background(), types.NamespacedName{Name: n + "-pods"}, pods); err != nil {
		t.Fatal(err)
	}
	update(t, pods, func(a *kbgpv1.BGPAdvertisement) {
		a.Spec.Advertisements[0].Attributes = &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{
			Standard: []kbgpv1.StandardCommunity{"65001:100"}, Large: []kbgpv1.LargeCommunity{"65001:1:2"}}}
	})
	update(t, tp.config, func(nc *kbgpv1.BGPNodeConfig) {
		nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, vrfNodePeer("ghost", 65078, "vrfc", n+"-blue"))
	})
	tp.red.MustConfigure("route-map kbgp-e2e-sent permit 10", "set community "+redSentCommunity, "exit",
		"router bgp 65077", "address-family ipv4 unicast", "network "+redSent+" route-map kbgp-e2e-sent")
	tp.red.WaitNeighborState(t, vrfNodeAddr, "Established", sessionTimeout)
	tp.blue.WaitNeighborState(t, vrfNodeAddr, "Established", sessionTimeout)
	waitFRRReceived(t, tp.red, map[string]string{vrfPodCIDR: "65001:100,65001:1:2"})
	waitFRRReceived(t, tp.blue, map[string]string{vrfServiceIP + "/32": ""})

	kubeconfig := tp.noSecretsKubeconfig(t)
	plugin := func(args ...string) string {
		t.Helper()
		out, err := tp.node.ExecTimeout(30*time.Second, append([]string{kubectlBGPBinary, "routes", n, "--kubeconfig", kubeconfig, "-o", "wide"}, args...)...)
		if err != nil {
			t.Fatalf("kubectl bgp routes %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	agentURL := "--agent-url=http://127.0.0.1:9080"

	advertised := pluginRoutes(t, plugin("--advertised", agentURL))
	want := map[string]map[string]string{
		"red":  frrReceived(t, tp.red),
		"blue": frrReceived(t, tp.blue),
	}
	if !maps.EqualFunc(advertised, want, maps.Equal) {
		t.Errorf("kubectl bgp routes --advertised: %v\nFRR received: %v", advertised, want)
	}

	// red's route was configured just now: wait until the node has it.
	var received map[string]map[string]string
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		received = pluginRoutes(t, plugin("--received", agentURL))
		return len(received["red"]) > 0, fmt.Sprintf("received %v", received)
	})
	if got := received["red"]; len(received) != 1 || !maps.Equal(got, map[string]string{redSent: redSentCommunity}) {
		t.Errorf("kubectl bgp routes --received: %v, want red's %s with %s only", received, redSent, redSentCommunity)
	}
	if sent := frrOwn(t, tp.red); !maps.Equal(received["red"], sent) {
		t.Errorf("kubectl bgp routes --received: red %v, red's FRR originates %v", received["red"], sent)
	}

	// explain takes a peer's session state from the node's status first, which the
	// agent writes at most once per status interval: wait until it has both sessions
	// up, or it reports them as they were before.
	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		red, blue := peerStatus(t, n, "red"), peerStatus(t, n, "blue")
		return red.PeeringState == kbgpv1.PeeringStateEstablished && blue.PeeringState == kbgpv1.PeeringStateEstablished,
			fmt.Sprintf("node status: red %q, blue %q", red.PeeringState, blue.PeeringState)
	})
	explain, err := tp.node.ExecTimeout(30*time.Second, kubectlBGPBinary, "explain", "service", "default/"+n+"-lb", "--kubeconfig", kubeconfig, agentURL)
	if err != nil {
		t.Fatalf("kubectl bgp explain service: %v\n%s", err, explain)
	}
	for _, want := range []string{
		"instance 65001/vrfb peer blue is sent " + vrfServiceIP + "/32 now",
		"instance 65001/vrfa peer red is not sent " + vrfServiceIP + "/32: inferred from the recomputation",
	} {
		if !strings.Contains(explain, want) {
			t.Errorf("kubectl bgp explain service lacks %q:\n%s", want, explain)
		}
	}

	computed := plugin("--computed")
	if !strings.Contains(computed, "ghost") || !strings.Contains(computed, "not readable") {
		t.Errorf("kubectl bgp routes --computed lists no route for the peer in the missing VRF or no note about the Secret:\n%s", computed)
	}
}

// noSecretsKubeconfig is a kubeconfig, usable inside the node's namespace, for a user
// who may read everything the plugin reads except Secrets.
func (tp *vrfTopology) noSecretsKubeconfig(t *testing.T) string {
	t.Helper()
	user := "routes-reader-" + tp.nodeName
	create(t,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"kbgp.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"nodes", "services", "pods"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}})
	cfg, err := server.UserConfig(user)
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: "https://" + tp.agent.relay.Addr(), CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: user}
	kc.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// pluginRoutes parses `kubectl bgp routes -o wide` into peer → prefix → communities
// (standard, then large, comma-joined; "" for none).
func pluginRoutes(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Fields(lines[0])
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	got := map[string]map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(header) {
			break
		}
		var cs []string
		for _, c := range []string{f[col["COMMUNITIES"]], f[col["LARGE-COMMUNITIES"]]} {
			if c != "-" {
				cs = append(cs, c)
			}
		}
		peer := f[col["PEER"]]
		if got[peer] == nil {
			got[peer] = map[string]string{}
		}
		got[peer][f[col["PREFIX"]]] = strings.Join(cs, ",")
	}
	return got
}

// frrReceived is what FRR received from the node: prefix → communities, in the form
// of pluginRoutes.
func frrReceived(t *testing.T, f *netlab.FRR) map[string]string {
	t.Helper()
	return frrPaths(t, f, func(peer string) bool { return peer == vrfNodeAddr })
}

// waitFRRReceived waits until FRR received exactly want from the node.
func waitFRRReceived(t *testing.T, f *netlab.FRR, want map[string]string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		got := frrReceived(t, f)
		return maps.Equal(got, want), fmt.Sprintf("FRR %s received %v, want %v", f.Namespace(), got, want)
	})
}

// frrOwn is what FRR originates (its local paths), in the form of pluginRoutes.
func frrOwn(t *testing.T, f *netlab.FRR) map[string]string {
	t.Helper()
	return frrPaths(t, f, func(peer string) bool { return peer == "0.0.0.0" })
}

func frrPaths(t *testing.T, f *netlab.FRR, from func(peer string) bool) map[string]string {
	t.Helper()
	routes, err := f.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for prefix, r := range routes {
		for _, p := range r.Paths {
			if from(p.PeerID) {
				out[prefix] = strings.Join(slices.Concat(slices.Sorted(slices.Values(p.Communities)), p.LargeCommunities), ",")
			}
		}
	}
	return out
}
