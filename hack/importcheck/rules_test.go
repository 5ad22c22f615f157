package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// clean is a module that keeps every boundary.
func clean() []pkg {
	var pkgs []pkg
	for _, rel := range purePackages {
		pkgs = append(pkgs, pkg{ImportPath: module + "/" + rel, Deps: []string{"k8s.io/apimachinery/pkg/labels", "fmt"}})
	}
	return append(pkgs,
		pkg{ImportPath: module + "/api/v1alpha1", Imports: []string{"k8s.io/apimachinery/pkg/runtime", "fmt"}},
		pkg{ImportPath: module + "/internal/bgp/gobgp", Imports: []string{gobgp + "/v4/pkg/server"}},
		pkg{ImportPath: module + "/internal/testing/gobgptest", Imports: []string{gobgp + "/v4/api", module + "/internal/bgp"}},
		pkg{ImportPath: module + "/internal/lab", Imports: []string{module + "/internal/testing/gobgptest"}},
		pkg{ImportPath: module + "/cmd/kbgp-lab", Deps: []string{module + "/internal/lab", module + "/internal/testing/gobgptest", envtest}},
		pkg{ImportPath: module + "/cmd/kbgp", Deps: []string{module + "/internal/agent", crManager}},
		pkg{ImportPath: module + "/cmd/kbgp-cni", Deps: []string{module + "/internal/cni", module + "/internal/podnet", "github.com/containernetworking/cni/pkg/skel"}},
		pkg{ImportPath: module + "/internal/kubectlbgp", TestImports: []string{module + "/internal/testing/golden"}},
		pkg{ImportPath: module + "/bench", TestImports: []string{gobgp + "/v4/api"}},
		pkg{ImportPath: module + "/internal/agent", Deps: []string{module + "/internal/contract", module + "/internal/agent/nodebgp", module + "/internal/agent/report",
			module + "/internal/podnet/controller", crManager}},
		pkg{ImportPath: module + "/internal/agent/nodebgp", Deps: []string{module + "/internal/agent/report", module + "/internal/checkpoint", crManager}},
		pkg{ImportPath: module + "/internal/agent/report", Deps: []string{module + "/internal/speakers", crManager}},
		pkg{ImportPath: module + "/internal/podnet/controller", Deps: []string{module + "/internal/podnet", module + "/internal/podnet/routes", crManager}},
		pkg{ImportPath: module + "/internal/operator", Deps: []string{module + "/internal/contract", crManager}},
		pkg{ImportPath: module + "/cmd/kubectl-bgp", Deps: []string{controllerRuntime + "/pkg/client"}},
	)
}

// plant returns the clean module with one package changed.
func plant(path string, change func(*pkg)) []pkg {
	pkgs := clean()
	i := slices.IndexFunc(pkgs, func(p pkg) bool { return p.ImportPath == module+"/"+path })
	if i < 0 {
		pkgs = append(pkgs, pkg{ImportPath: module + "/" + path})
		i = len(pkgs) - 1
	}
	change(&pkgs[i])
	return pkgs
}

func TestCheck(t *testing.T) {
	if got := check(clean()); len(got) != 0 {
		t.Fatalf("clean module: %v", got)
	}
	for _, tc := range []struct {
		name string
		pkgs []pkg
		want string
	}{
		{"GoBGP outside the adapter", plant("internal/intent", func(p *pkg) { p.Imports = append(p.Imports, gobgp+"/v4/pkg/server") }),
			"kbgp.io/kbgp/internal/intent imports github.com/osrg/gobgp/v4/pkg/server: only internal/bgp/gobgp"},
		{"GoBGP in a test of another package", plant("test/component", func(p *pkg) { p.XTestImports = []string{gobgp + "/v4/api"} }),
			"kbgp.io/kbgp/test/component imports github.com/osrg/gobgp/v4/api"},
		{"api importing client-go", plant("api/v1alpha1", func(p *pkg) { p.Imports = append(p.Imports, clientGo+"/kubernetes/scheme") }),
			"kbgp.io/kbgp/api/v1alpha1 imports k8s.io/client-go/kubernetes/scheme: api/ imports only"},
		{"pure package on controller-runtime", plant("internal/render", func(p *pkg) { p.Deps = append(p.Deps, controllerRuntime+"/pkg/client") }),
			"kbgp.io/kbgp/internal/render depends on sigs.k8s.io/controller-runtime/pkg/client: pure packages"},
		{"pure package on client-go", plant("internal/speakers", func(p *pkg) { p.Deps = append(p.Deps, clientGo+"/rest") }),
			"kbgp.io/kbgp/internal/speakers depends on k8s.io/client-go/rest"},
		{"pure package missing", slices.DeleteFunc(clean(), func(p pkg) bool { return p.ImportPath == module+"/internal/status" }),
			"kbgp.io/kbgp/internal/status: listed as a pure package but not found"},
		{"agent on operator", plant("internal/agent", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/operator") }),
			"kbgp.io/kbgp/internal/agent depends on kbgp.io/kbgp/internal/operator"},
		{"operator on agent", plant("internal/operator", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/agent") }),
			"kbgp.io/kbgp/internal/operator depends on kbgp.io/kbgp/internal/agent"},
		{"reporting on the pod network", plant("internal/agent/report", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/podnet/controller") }),
			"kbgp.io/kbgp/internal/agent/report depends on kbgp.io/kbgp/internal/podnet/controller: the node's BGP and the pod network meet only"},
		{"the node's BGP on the pod network", plant("internal/agent/nodebgp", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/podnet/routes") }),
			"kbgp.io/kbgp/internal/agent/nodebgp depends on kbgp.io/kbgp/internal/podnet/routes: the node's BGP and the pod network meet only"},
		{"the pod network on the agent", plant("internal/podnet/controller", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/agent/report") }),
			"kbgp.io/kbgp/internal/podnet/controller depends on kbgp.io/kbgp/internal/agent/report: the pod network runs without"},
		{"the operator on a part of the agent", plant("internal/operator", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/agent/nodebgp") }),
			"kbgp.io/kbgp/internal/operator depends on kbgp.io/kbgp/internal/agent/nodebgp: the agent and the operator share"},
		{"the pod network's pure side on client-go", plant("internal/podnet", func(p *pkg) { p.Deps = append(p.Deps, clientGo+"/kubernetes") }),
			"kbgp.io/kbgp/internal/podnet depends on k8s.io/client-go/kubernetes: pure packages"},
		{"plugin on the manager", plant("cmd/kubectl-bgp", func(p *pkg) { p.Deps = append(p.Deps, crManager) }),
			"kbgp.io/kbgp/cmd/kubectl-bgp depends on sigs.k8s.io/controller-runtime/pkg/manager"},
		{"adapter code importing the test router", plant("internal/agent", func(p *pkg) { p.Imports = append(p.Imports, module+"/internal/testing/gobgptest") }),
			"kbgp.io/kbgp/internal/agent imports kbgp.io/kbgp/internal/testing/gobgptest: production code does not import test tooling"},
		{"golden files outside a test", plant("internal/podnet", func(p *pkg) { p.Imports = append(p.Imports, module+"/internal/testing/golden") }),
			"kbgp.io/kbgp/internal/podnet imports kbgp.io/kbgp/internal/testing/golden: production code"},
		{"kbgp linking envtest", plant("cmd/kbgp", func(p *pkg) { p.Deps = append(p.Deps, envtest) }),
			"kbgp.io/kbgp/cmd/kbgp depends on sigs.k8s.io/controller-runtime/pkg/envtest: a product binary links no test tooling"},
		{"kbgp linking the lab", plant("cmd/kbgp", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/lab", module+"/internal/frr") }),
			"kbgp.io/kbgp/cmd/kbgp depends on kbgp.io/kbgp/internal/lab (and 1 more): a product binary"},
		{"plugin linking envtest", plant("cmd/kubectl-bgp", func(p *pkg) { p.Deps = append(p.Deps, envtest) }),
			"kbgp.io/kbgp/cmd/kubectl-bgp depends on sigs.k8s.io/controller-runtime/pkg/envtest: a product binary"},
		{"plugin on the agent's speakers", plant("cmd/kubectl-bgp", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/speakers") }),
			"kbgp.io/kbgp/cmd/kubectl-bgp depends on kbgp.io/kbgp/internal/speakers: the kubectl plugin links only"},
		{"plugin on the status builder", plant("cmd/kubectl-bgp", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/status", module+"/api/v1alpha1") }),
			"kbgp.io/kbgp/cmd/kubectl-bgp depends on kbgp.io/kbgp/internal/status: the kubectl plugin links only"},
		{"CNI plugin on the agent", plant("cmd/kbgp-cni", func(p *pkg) { p.Deps = append(p.Deps, module+"/internal/agent") }),
			"kbgp.io/kbgp/cmd/kbgp-cni depends on kbgp.io/kbgp/internal/agent: the CNI plugin links only"},
		{"CNI plugin on client-go", plant("cmd/kbgp-cni", func(p *pkg) { p.Deps = append(p.Deps, clientGo+"/kubernetes") }),
			"kbgp.io/kbgp/cmd/kbgp-cni depends on k8s.io/client-go/kubernetes: the CNI plugin links only"},
		{"plugin on GoBGP", plant("cmd/kubectl-bgp", func(p *pkg) { p.Deps = append(p.Deps, gobgp+"/v4/pkg/packet/bgp") }),
			"kbgp.io/kbgp/cmd/kubectl-bgp depends on github.com/osrg/gobgp/v4/pkg/packet/bgp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check(tc.pkgs)
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("check = %q, want one problem containing %q", got, tc.want)
			}
		})
	}
}

// TestModuleKeepsItsBoundaries runs the check on the real module.
func TestModuleKeepsItsBoundaries(t *testing.T) {
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	pkgs, err := listPackages()
	if err != nil {
		t.Fatal(err)
	}
	if problems := check(pkgs); len(problems) > 0 {
		t.Errorf("the module crosses its boundaries:\n%s", strings.Join(problems, "\n"))
	}
}
