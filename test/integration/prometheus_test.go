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

// TestPrometheusManifestsApply installs the PodMonitor and PrometheusRule CRDs from the
// Prometheus Operator module and applies config/prometheus with a server-side dry run:
// a monitor or rule that does not match the schema fails here.
func TestPrometheusManifestsApply(t *testing.T) {
	out, err := exec.Command("go", "mod", "download", "-json", prometheusOperator).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", prometheusOperator, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", prometheusOperator, err, out)
	}
	k := newKubectl(t, "prometheus")
	for _, kind := range []string{"podmonitors", "prometheusrules"} {
		k.run("apply", "--server-side", "-f", filepath.Join(mod.Dir, "example", "prometheus-operator-crd", "monitoring.coreos.com_"+kind+".yaml"))
		k.run("wait", "--for=condition=Established", "crd/"+kind+".monitoring.coreos.com", "--timeout=60s")
	}
	ensureNamespace(t, "kbgp-system")
	got := k.run("apply", "--server-side", "--dry-run=server", "-k", configDir("prometheus"))
	for _, want := range []string{
		"podmonitor.monitoring.coreos.com/kbgp serverside-applied (server dry run)",
		"prometheusrule.monitoring.coreos.com/kbgp-load-balancer serverside-applied (server dry run)",
		"prometheusrule.monitoring.coreos.com/kbgp-node-state serverside-applied (server dry run)",
		"prometheusrule.monitoring.coreos.com/kbgp-router-id serverside-applied (server dry run)",
		"prometheusrule.monitoring.coreos.com/kbgp-sessions serverside-applied (server dry run)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("apply output lacks %q:\n%s", want, got)
		}
	}
}
