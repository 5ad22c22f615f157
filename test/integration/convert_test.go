package integration

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/kubectlbgp"
)

// TestConvertOutputIsAccepted runs `kubectl bgp convert` on every published Cilium and
// MetalLB example and every real-world corpus file of internal/convert/testdata/in,
// checks that the command prints the
// golden output the unit tests compare with, and creates every object of it on the
// real API server with a server-side dry run: defaulting, the schema and every CEL rule
// run, nothing is stored. What the converter writes can be applied as it is.
func TestConvertOutputIsAccepted(t *testing.T) {
	dir := filepath.Join(server.RepoRoot, "internal", "convert", "testdata")
	inputs, err := filepath.Glob(filepath.Join(dir, "in", "*.yaml"))
	if err != nil || len(inputs) < 10 {
		t.Fatalf("want the published examples in %s/in, found %d: %v", dir, len(inputs), err)
	}
	total := 0
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			cmd := kubectlbgp.NewRootCommand()
			var stdout, stderr bytes.Buffer
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			cmd.SetArgs([]string{"convert", "-f", in})
			if err := cmd.Execute(); err != nil {
				t.Fatalf("kubectl bgp convert -f %s: %v\n%s", in, err, stderr.String())
			}
			golden, err := os.ReadFile(filepath.Join(dir, "out", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if stdout.String() != string(golden) {
				t.Errorf("kubectl bgp convert printed other objects than testdata/out/%s.yaml (run KBGP_UPDATE_GOLDEN=1 go test ./internal/convert):\n%s", name, stdout.String())
			}
			objs, err := yamlObjects(stdout.String())
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) == 0 {
				t.Fatal("no objects converted")
			}
			for _, o := range objs {
				total++
				if o.GetAPIVersion() != "kbgp.io/v1alpha1" {
					t.Errorf("%s %s: apiVersion %q, want kbgp.io/v1alpha1", o.GetKind(), o.GetName(), o.GetAPIVersion())
				}
				if err := server.Client.Create(context.Background(), o, client.DryRunAll); err != nil {
					t.Errorf("%s %s is refused: %v", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
	t.Logf("%d converted objects accepted", total)
}

// TestConvertReadsStandardInput checks `kubectl bgp convert -f -`.
func TestConvertReadsStandardInput(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(server.RepoRoot, "internal", "convert", "testdata", "in", "cilium-v2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := kubectlbgp.NewRootCommand()
	var stdout, stderr bytes.Buffer
	cmd.SetIn(bytes.NewReader(in))
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"convert", "-f", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "kind: BGPNodeConfigOverride") {
		t.Errorf("stdout lacks the override:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "warning: CiliumBGPClusterConfig/cilium-bgp: spec.bgpInstances[0].peers[0].localPort has no kbgp equivalent: dropped\n") {
		t.Errorf("stderr lacks the warning:\n%s", stderr.String())
	}
}
