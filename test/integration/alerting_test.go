package integration

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// prometheusOperator is the module whose CRDs the alert rules and monitors are checked
// against; its CRD manifests come from the Go module cache.
const prometheusOperator = "github.com/prometheus-operator/prometheus-operator@v0.85.0"

// TestAlertRulesApply installs the PrometheusRule CRD from the Prometheus Operator
// module and applies docs/alerting/*.yaml with a server-side dry run: a rule that does
// not match the schema fails here.
func TestAlertRulesApply(t *testing.T) {
	out, err := exec.Command("go", "mod", "download", "-json", prometheusOperator).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", prometheusOperator, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", prometheusOperator, err, out)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := server.WriteKubeconfig(kubeconfig, "alerting"); err != nil {
		t.Fatal(err)
	}
	kubectl := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(server.Kubectl(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	crd := filepath.Join(mod.Dir, "example", "prometheus-operator-crd", "monitoring.coreos.com_prometheusrules.yaml")
	kubectl("apply", "--server-side", "-f", crd)
	kubectl("wait", "--for=condition=Established", "crd/prometheusrules.monitoring.coreos.com", "--timeout=60s")
	got := kubectl("apply", "--server-side", "--dry-run=server", "-n", "default", "-f", filepath.Join(server.RepoRoot, "docs", "alerting"))
	if !strings.Contains(got, "prometheusrule.monitoring.coreos.com/kbgp-router-id serverside-applied (server dry run)") {
		t.Fatalf("alert rules not applied:\n%s", got)
	}
}
