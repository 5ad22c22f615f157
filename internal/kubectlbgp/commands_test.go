package kubectlbgp

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
)

// run executes the plugin in-process against objs served by controller-runtime's fake
// client. These tests check the wiring (flags, which objects are read, error texts);
// the output itself is tested on the pure functions.
func run(t *testing.T, objs []client.Object, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	scheme, err := contract.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	cmd := newRootCommandWith(&kubeOptions{newReader: func() (client.Reader, error) { return c, nil }})
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// clusterObjects is the explain fixture as API objects, plus the Node.
func clusterObjects() []client.Object {
	in := twoConfigsWithOverride()
	objs := []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.NodeName, Labels: in.NodeLabels}},
		in.NodeConfig,
	}
	for i := range in.ClusterConfigs {
		objs = append(objs, &in.ClusterConfigs[i])
	}
	for i := range in.Overrides {
		objs = append(objs, &in.Overrides[i])
	}
	for i := range in.PeerConfigs {
		objs = append(objs, &in.PeerConfigs[i])
	}
	for i := range in.Advertisements {
		objs = append(objs, &in.Advertisements[i])
	}
	other := nodeConfigWithStatus("worker-2", kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
		{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{sessionStatus("tor-a", "10.2.1.1", "", kbgpv1.PeeringStateActive, 0)}},
	}})
	return append(objs, &other)
}

func TestHelpNamesEverySubcommandAndKubeconfigFlags(t *testing.T) {
	out, _, err := run(t, nil, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"\n  peers ", "\n  status ", "\n  routes ", "\n  explain ", "--kubeconfig", "--context", "--request-timeout", "kubectl bgp [command]"} {
		if !strings.Contains(out, s) {
			t.Errorf("--help lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "--namespace") {
		t.Errorf("--help offers --namespace, but every kbgp kind is cluster-scoped")
	}
}

func TestPeersCommand(t *testing.T) {
	out, _, err := run(t, clusterObjects(), "peers")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "NODE ") || !strings.HasPrefix(lines[4], "worker-2 ") {
		t.Errorf("want header, 3 sessions of worker-1 and 1 of worker-2:\n%s", out)
	}

	out, _, err = run(t, clusterObjects(), "peers", "--node", "worker-2", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "PEER-ASN") {
		t.Errorf("--node worker-2 -o wide:\n%s", out)
	}
}

func TestPeersCommandErrors(t *testing.T) {
	if _, _, err := run(t, nil, "peers", "-o", "json"); err == nil || !strings.Contains(err.Error(), `unknown output format "json"`) {
		t.Errorf("-o json: got %v", err)
	}
	_, _, err := run(t, nil, "peers", "--node", "worker-9")
	if err == nil || !strings.Contains(err.Error(), "kubectl bgp explain worker-9") {
		t.Errorf("missing node config: got %v", err)
	}
	_, stderr, err := run(t, nil, "peers")
	if err != nil || !strings.Contains(stderr, "No BGP sessions reported.") {
		t.Errorf("no node configs: err %v, stderr %q", err, stderr)
	}
}

func TestStatusCommand(t *testing.T) {
	out, _, err := run(t, clusterObjects(), "status")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"worker-1   10.10.10.10,10.255.166.39", "  BGPPeerConfig/rack9: not found", "worker-2   -"}
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("status lacks %q:\n%s", s, out)
		}
	}
}

// TestExplainCommand reads the same objects from the API as the pure test builds, so
// the output must be the same golden file; the fake client's list order differs from
// the fixture's, which explain must not care about.
func TestExplainCommand(t *testing.T) {
	out, _, err := run(t, clusterObjects(), "explain", "worker-1")
	if err != nil {
		t.Fatal(err)
	}
	goldenLines(t, "explain_two_configs_override.txt", strings.Split(strings.TrimSuffix(out, "\n"), "\n"))

	if _, _, err := run(t, nil, "explain", "worker-9"); err == nil || !strings.Contains(err.Error(), "get node worker-9") {
		t.Errorf("unknown node: got %v", err)
	}
	if _, _, err := run(t, nil, "explain"); err == nil {
		t.Error("explain without a node: want an error")
	}
}
