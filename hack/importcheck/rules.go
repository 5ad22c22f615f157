package main

import (
	"fmt"
	"slices"
	"strings"
)

const module = "kbgp.io/kbgp"

// pkg is one package of the module as `go list` reports it.
type pkg struct {
	ImportPath   string
	Imports      []string // non-test imports
	TestImports  []string
	XTestImports []string
	Deps         []string // transitive non-test dependencies
}

// purePackages hold the translation and desired-state code: plain Go over API types,
// table-tested without a cluster, so they never depend on a Kubernetes client.
var purePackages = []string{
	"internal/bgp", "internal/checkpoint", "internal/convert", "internal/exports", "internal/intent", "internal/lbipam", "internal/peeringpolicy", "internal/podnet", "internal/render",
	"internal/routerid", "internal/sanitize", "internal/speakers", "internal/status",
}

// apart are packages that must not depend on others: from and to are paths relative to
// the module, a trailing "/..." taking in the packages below too.
var apart = []struct {
	from, to []string
	why      string
}{
	{[]string{"internal/agent/..."}, []string{"internal/operator"}, "the agent and the operator share only internal/contract"},
	{[]string{"internal/operator"}, []string{"internal/agent/..."}, "the agent and the operator share only internal/contract"},
	// (nodebgp → report and agent → its parts make the reverse imports cycles, which
	// the compiler refuses already.)
	{[]string{"internal/agent/nodebgp", "internal/agent/report"}, []string{"internal/podnet/controller", "internal/podnet/routes"},
		"the node's BGP and the pod network meet only in the agent's wiring"},
	{[]string{"internal/podnet/..."}, []string{"internal/agent/..."},
		"the pod network runs without any BGP configuration: it is wired beside the agent, not on it"},
}

// pluginPackages are the module's packages the kubectl plugin may link: the API, the
// scheme and lease names it shares with the agent (contract), the converter it runs
// for `kubectl bgp convert`, the text sanitiser, and itself. The computed view of
// `kubectl bgp routes` and `explain` re-runs the operator's and the agent's pure
// decisions (render, routerid, nodeinput, intent with the exports index it fills, bgp)
// until the agent answers for itself (issue 37); nothing else of the agent or the
// operator is linked.
var pluginPackages = []string{
	"api", "cmd/kubectl-bgp", "internal/contract", "internal/convert", "internal/kubectlbgp", "internal/sanitize",
	"internal/render", "internal/routerid", "internal/nodeinput", "internal/intent", "internal/exports", "internal/bgp",
}

// productBinaries are what ships: the image's kbgp (operator, agent) and kbgp-cni (the
// CNI plugin the runtime executes for every pod), and the kubectl plugin.
var productBinaries = []string{"cmd/kbgp", "cmd/kbgp-cni", "cmd/kubectl-bgp"}

// cniPackages are the module's packages the CNI plugin binary may link: the plugin
// and the conflist vocabulary it shares with the agent. It starts for every pod's ADD,
// CHECK and DEL, so it links no Kubernetes client library and no GoBGP either.
var cniPackages = []string{"cmd/kbgp-cni", "internal/cni", "internal/podnet"}

// testTooling are the module's packages for the lab and the tests. No product binary
// links them, and envtest neither.
var testTooling = []string{"internal/testing", "internal/lab", "internal/controlplane", "internal/frr", "test"}

// testToolingUsers may import internal/testing outside their tests: the tooling itself,
// the lab binary, the test packages and the benchmarks.
var testToolingUsers = []string{"internal/testing", "internal/lab", "cmd/kbgp-lab", "test", "bench"}

// The boundaries, as import path prefixes.
const (
	gobgp             = "github.com/osrg/gobgp"
	apimachinery      = "k8s.io/apimachinery/"
	clientGo          = "k8s.io/client-go"
	controllerRuntime = "sigs.k8s.io/controller-runtime"
	crManager         = "sigs.k8s.io/controller-runtime/pkg/manager"
	envtest           = "sigs.k8s.io/controller-runtime/pkg/envtest"
)

// check returns one line per boundary a package crosses, sorted.
func check(pkgs []pkg) []string {
	byPath := map[string]pkg{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, p := range pkgs {
		if len(outside([]string{p.ImportPath}, []string{"internal/bgp/gobgp", "internal/testing", "bench"})) > 0 {
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				if under(imp, gobgp) {
					add("%s imports %s: only internal/bgp/gobgp (and internal/testing, bench) may import GoBGP", p.ImportPath, imp)
				}
			}
		}
		if len(outside([]string{p.ImportPath}, testToolingUsers)) > 0 {
			for _, imp := range p.Imports {
				if under(imp, module+"/internal/testing") {
					add("%s imports %s: production code does not import test tooling", p.ImportPath, imp)
				}
			}
		}
		if under(p.ImportPath, module+"/api") {
			for _, imp := range p.Imports {
				if !stdlib(imp) && !strings.HasPrefix(imp, apimachinery) && !under(imp, module+"/api") {
					add("%s imports %s: api/ imports only the standard library and k8s.io/apimachinery", p.ImportPath, imp)
				}
			}
		}
	}
	for _, rel := range purePackages {
		p, ok := byPath[module+"/"+rel]
		if !ok {
			add("%s/%s: listed as a pure package but not found (update purePackages)", module, rel)
			continue
		}
		if bad := matching(p.Deps, clientGo, controllerRuntime); len(bad) > 0 {
			add("%s depends on %s: pure packages do not depend on client-go or controller-runtime", p.ImportPath, summary(bad))
		}
	}
	for _, rule := range apart {
		for _, p := range pkgs {
			if !slices.ContainsFunc(rule.from, func(from string) bool { return matches(p.ImportPath, from) }) {
				continue
			}
			for _, dep := range p.Deps {
				if slices.ContainsFunc(rule.to, func(to string) bool { return matches(dep, to) }) {
					add("%s depends on %s: %s", p.ImportPath, dep, rule.why)
				}
			}
		}
	}
	for _, rel := range productBinaries {
		p, ok := byPath[module+"/"+rel]
		if !ok {
			add("%s/%s: listed as a product binary but not found (update productBinaries)", module, rel)
			continue
		}
		bad := matching(p.Deps, envtest)
		for _, dir := range testTooling {
			bad = append(bad, matching(p.Deps, module+"/"+dir)...)
		}
		if len(bad) > 0 {
			add("%s depends on %s: a product binary links no test tooling (the lab is cmd/kbgp-lab)", p.ImportPath, summary(bad))
		}
	}
	if p, ok := byPath[module+"/cmd/kubectl-bgp"]; ok {
		if bad := matching(p.Deps, crManager, gobgp); len(bad) > 0 {
			add("%s depends on %s: the kubectl plugin links neither the controller manager nor GoBGP", p.ImportPath, summary(bad))
		}
		if bad := outside(matching(p.Deps, module), pluginPackages); len(bad) > 0 {
			add("%s depends on %s: the kubectl plugin links only the API, its client libraries and the packages of pluginPackages", p.ImportPath, summary(bad))
		}
	}
	if p, ok := byPath[module+"/cmd/kbgp-cni"]; ok {
		bad := append(outside(matching(p.Deps, module), cniPackages), matching(p.Deps, "k8s.io", controllerRuntime, gobgp)...)
		if len(bad) > 0 {
			add("%s depends on %s: the CNI plugin links only the packages of cniPackages, no Kubernetes library or GoBGP", p.ImportPath, summary(bad))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// matching are the paths under any of prefixes.
func matching(paths []string, prefixes ...string) []string {
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		return !slices.ContainsFunc(prefixes, func(prefix string) bool { return under(p, prefix) })
	})
}

// outside are the module paths not under any of the module-relative dirs.
func outside(paths, dirs []string) []string {
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return under(p, module+"/"+d) })
	})
}

// summary names the first path and how many more there are.
func summary(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s (and %d more)", paths[0], len(paths)-1)
}

// matches reports whether path is the module's package rel, or one below it when rel
// ends in "/...".
func matches(path, rel string) bool {
	if base, ok := strings.CutSuffix(rel, "/..."); ok {
		return under(path, module+"/"+base)
	}
	return path == module+"/"+rel
}

// under reports whether path is prefix or a package below it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// stdlib reports whether an import path is the standard library's: its first element
// has no dot.
func stdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
