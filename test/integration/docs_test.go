package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kbgpAPIVersion marks the YAML blocks of a document that are kbgp objects; blocks of
// other projects' kinds (the "before" half of a migration example) are left alone.
const kbgpAPIVersion = "apiVersion: kbgp.io/v1alpha1"

// docObject is one kbgp object written in a document, with the line its YAML block
// starts on so a failure points at the example to fix.
type docObject struct {
	line int
	obj  *unstructured.Unstructured
}

// docObjects returns every object of the ```yaml blocks of markdown that name
// kbgp.io/v1alpha1. A block that names it must hold kbgp objects only, so an example
// can never half-escape the check.
func docObjects(markdown string) ([]docObject, error) {
	var out []docObject
	var block strings.Builder
	inBlock, start := false, 0
	sc := bufio.NewScanner(strings.NewReader(markdown))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !inBlock && strings.TrimSpace(line) == "```yaml":
			inBlock, start = true, n
			block.Reset()
		case inBlock && strings.TrimSpace(line) == "```":
			inBlock = false
			if !strings.Contains(block.String(), kbgpAPIVersion) {
				continue
			}
			objs, err := yamlObjects(block.String())
			if err != nil {
				return nil, fmt.Errorf("yaml block at line %d: %w", start, err)
			}
			for _, o := range objs {
				if o.GetAPIVersion() != "kbgp.io/v1alpha1" {
					return nil, fmt.Errorf("yaml block at line %d mixes %s %s with kbgp objects; give it a block of its own", start, o.GetAPIVersion(), o.GetKind())
				}
				out = append(out, docObject{line: start, obj: o})
			}
		case inBlock:
			block.WriteString(line + "\n")
		}
	}
	if inBlock {
		return nil, fmt.Errorf("yaml block at line %d is not closed", start)
	}
	return out, sc.Err()
}

// yamlObjects decodes every document of a multi-document YAML stream.
func yamlObjects(stream string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// dryRunApply applies obj with a server-side apply dry run, the way
// `kubectl apply --server-side --dry-run=server` does: the API server runs defaulting,
// the schema and every CEL rule, and stores nothing.
func dryRunApply(obj *unstructured.Unstructured) error {
	return server.Client.Patch(context.Background(), obj, client.Apply,
		client.DryRunAll, client.FieldOwner("kbgp-docs"), client.ForceOwnership)
}

// TestMigrationExamplesAreAccepted applies every kbgp object of docs/migration.md to the
// real API server, so the migration examples can never drift from the schema.
func TestMigrationExamplesAreAccepted(t *testing.T) {
	// One worked example per project (MetalLB, Cilium v2, Cilium peering policy,
	// kube-router, Calico), each at least a cluster config and a peer config: fewer
	// objects means the extraction lost examples.
	applyDocExamples(t, "migration.md", 10)
}

// TestLoadBalancerExamplesAreAccepted does the same for docs/load-balancer.md.
func TestLoadBalancerExamplesAreAccepted(t *testing.T) {
	applyDocExamples(t, "load-balancer.md", 1)
}

// applyDocExamples dry-runs every kbgp object of docs/name, of which there must be at
// least least.
func applyDocExamples(t *testing.T, name string, least int) {
	data, err := os.ReadFile(filepath.Join(server.RepoRoot, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := docObjects(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < least {
		t.Fatalf("docs/%s: found %d kbgp objects, want at least %d", name, len(objs), least)
	}
	for _, o := range objs {
		t.Run(fmt.Sprintf("line %d %s %s", o.line, o.obj.GetKind(), o.obj.GetName()), func(t *testing.T) {
			if err := dryRunApply(o.obj); err != nil {
				t.Errorf("docs/%s, yaml block at line %d: the API server refused %s %q: %v", name, o.line, o.obj.GetKind(), o.obj.GetName(), err)
			}
		})
	}
}

// TestBrokenDocExampleIsRefused runs the same extraction and dry run on a document
// with a wrong example, so the check above is known to bite.
func TestBrokenDocExampleIsRefused(t *testing.T) {
	doc := "Text.\n\n```yaml\n# another project's object is ignored\napiVersion: metallb.io/v1beta2\nkind: BGPPeer\n```\n\n" +
		"```yaml\napiVersion: kbgp.io/v1alpha1\nkind: BGPClusterConfig\nmetadata: {name: docs-broken}\nspec:\n" +
		"  bgpInstances:\n  - localASN: 65001\n    peers:\n    - {name: tor, peerAddress: 10.0.0.1/32, peerASN: 65000}\n```\n"
	objs, err := docObjects(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].line != 9 {
		t.Fatalf("docObjects = %d objects (first at line %v), want 1 at line 9", len(objs), objs)
	}
	err = dryRunApply(objs[0].obj)
	if err == nil || !strings.Contains(err.Error(), "peerAddress must be an IPv4 or IPv6 address") {
		t.Fatalf("a peerAddress in CIDR notation was not refused with the schema's message: %v", err)
	}

	if _, err := docObjects("```yaml\napiVersion: kbgp.io/v1alpha1\nkind: BGPPeerConfig\n---\napiVersion: v1\nkind: Secret\n```\n"); err == nil {
		t.Fatal("a block mixing kbgp objects with a Secret was accepted")
	}
}
