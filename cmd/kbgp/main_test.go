package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the kbgp command line in-process.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestHelpNamesEverySubcommand(t *testing.T) {
	out, err := run(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"operator", "agent", "install-cni", "version"} {
		if !strings.Contains(out, "\n  "+sub+" ") {
			t.Errorf("--help does not list %q:\n%s", sub, out)
		}
	}
}

func TestFlagsOfTheContract(t *testing.T) {
	for sub, flags := range map[string][]string{
		"operator": {"--kubeconfig", "--metrics-bind-address", "--health-probe-bind-address", "--leader-elect"},
		"agent":    {"--kubeconfig", "--node-name", "--namespace", "--metrics-bind-address", "--health-probe-bind-address", "--pprof-bind-address"},
	} {
		out, err := run(t, sub, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flags {
			if !strings.Contains(out, f) {
				t.Errorf("kbgp %s --help lacks %s", sub, f)
			}
		}
	}
}

func TestAgentFailsFastWithoutNodeName(t *testing.T) {
	t.Setenv(envNodeName, "")
	_, err := run(t, "agent")
	if err == nil || err.Error() != errNodeNameUnset.Error() {
		t.Fatalf("want %q, got %v", errNodeNameUnset, err)
	}
}

func TestAgentNamespaceDefaults(t *testing.T) {
	t.Setenv(envNodeName, "worker-1")
	t.Setenv(envPodNamespace, "")
	o := agentOptions{}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if o.nodeName != "worker-1" || o.namespace != defaultNamespace {
		t.Fatalf("got node %q namespace %q", o.nodeName, o.namespace)
	}
	t.Setenv(envPodNamespace, "bgp")
	o = agentOptions{nodeName: "worker-2"}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if o.nodeName != "worker-2" || o.namespace != "bgp" {
		t.Fatalf("got node %q namespace %q", o.nodeName, o.namespace)
	}
}

// Subcommands whose issue has not landed must fail, never pretend to run.
func TestVersion(t *testing.T) {
	out, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "kbgp ") {
		t.Fatalf("version printed %q, %v", out, err)
	}
}

func TestAgentEndpointsBindTheHostIP(t *testing.T) {
	t.Setenv(envHostIP, "10.1.2.3")
	f := newAgentCommand().Flags()
	for flag, want := range map[string]string{"metrics-bind-address": "10.1.2.3:9080", "health-probe-bind-address": "10.1.2.3:9081"} {
		if got := f.Lookup(flag).DefValue; got != want {
			t.Errorf("--%s default %q with %s set, want %q", flag, got, envHostIP, want)
		}
	}
	t.Setenv(envHostIP, "")
	if got := newAgentCommand().Flags().Lookup("metrics-bind-address").DefValue; got != ":9080" {
		t.Errorf("--metrics-bind-address default %q without %s, want :9080", got, envHostIP)
	}
	if f.Lookup("metrics-secure") == nil {
		t.Error("no --metrics-secure flag")
	}
}

// TestInstallCNI: the plugin lands in the directory under its CNI name, executable, a
// byte-for-byte copy; installing again replaces it.
func TestInstallCNI(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(t.TempDir(), "kbgp-cni")
	if err := os.WriteFile(plugin, []byte("binary v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"binary v1", "binary v2"} {
		if err := os.WriteFile(plugin, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := installCNI(plugin, dir); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "kbgp-cni"))
		if err != nil || string(got) != content {
			t.Fatalf("installed %q (%v), want %q", got, err, content)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "kbgp-cni")); fi.Mode().Perm() != 0o755 {
			t.Errorf("mode %v, want 0755", fi.Mode())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the plugin alone", len(entries))
	}
}
