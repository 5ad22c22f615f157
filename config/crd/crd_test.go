package crd

import "testing"

// TestDefinitionsDecode proves every generated CRD is embedded and decodes strictly.
func TestDefinitionsDecode(t *testing.T) {
	defs, err := Definitions()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"bgpclusterconfigs.kbgp.io": true, "bgppeerconfigs.kbgp.io": true, "bgpadvertisements.kbgp.io": true,
		"bgpnodeconfigs.kbgp.io": true, "bgpnodeconfigoverrides.kbgp.io": true, "loadbalancerippools.kbgp.io": true,
		"bgppeeringpolicies.kbgp.io": true,
	}
	if len(defs) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(defs), len(want))
	}
	for _, d := range defs {
		if !want[d.Name] {
			t.Errorf("unexpected CRD %q", d.Name)
		}
	}
}
