package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// promtoolBinary is Prometheus's promtool: $KBGP_PROMTOOL, or where hack/test-deps.sh
// unpacks Debian's prometheus package.
func promtoolBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KBGP_PROMTOOL"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, ".cache", "kbgp", "prometheus", "usr", "bin", "promtool")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("promtool not found at %s: run hack/test-deps.sh", p)
	}
	return p
}

// ruleSpec is what the test reads of a PrometheusRule.
type ruleSpec struct {
	Spec struct {
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// TestAlertRules checks every shipped alert file with promtool (its PromQL parses),
// checks that each kbgp_ metric an expression names is one the code defines, and
// runs the promtool unit tests of testdata against their rules.
func TestAlertRules(t *testing.T) {
	promtool := promtoolBinary(t)
	defined := definedMetrics(t)
	files, err := filepath.Glob(filepath.Join(configDir("prometheus"), "*-alerts.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no alert files: %v", err)
	}
	metric := regexp.MustCompile(`\bkbgp_[a-z0-9_]+`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rule ruleSpec
		if err := yaml.Unmarshal(raw, &rule); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range rule.Spec.Groups {
			for _, r := range g.Rules {
				for _, name := range metric.FindAllString(r.Expr, -1) {
					if !defined[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")] {
						t.Errorf("%s: alert %s names %s, which no code defines", filepath.Base(f), r.Alert, name)
					}
				}
			}
		}
		dir := t.TempDir()
		rules := specFile(t, raw, dir)
		if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
			t.Errorf("promtool check rules %s: %v\n%s", filepath.Base(f), err, out)
		}
		unit := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(f), ".yaml")+"-test.yaml")
		if _, err := os.Stat(unit); err != nil {
			continue
		}
		test, err := os.ReadFile(unit)
		if err != nil {
			t.Fatal(err)
		}
		testFile := filepath.Join(dir, "test.yaml")
		if err := os.WriteFile(testFile, test, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(promtool, "test", "rules", testFile).CombinedOutput(); err != nil {
			t.Errorf("promtool test rules %s: %v\n%s", unit, err, out)
		}
	}
}

// specFile writes the PrometheusRule's spec, a plain Prometheus rule file, as
// dir/rules.yaml.
func specFile(t *testing.T, raw []byte, dir string) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	spec, err := yaml.Marshal(obj["spec"])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// definedMetrics are the metric names the module's code defines: every "kbgp_..."
// string in a Name field of a composite literal (prometheus.GaugeOpts and the like)
// outside tests.
func definedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(server.RepoRoot, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Name" {
				if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "kbgp_") {
						out[s] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out["kbgp_routes_advertised"] || !out["kbgp_session_state"] {
		t.Fatalf("metric definitions not found (found %v)", slices.Sorted(maps.Keys(out)))
	}
	return out
}
