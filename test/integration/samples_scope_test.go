package integration

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// TestSampleServiceSelectorsNameTheirNamespaces: the review's eighth claim, samples.
// A Service selector on labels alone lets a tenant of any namespace label a Service
// into the sample's attributes (no-export, a local preference) or addresses; every
// Service selector of the samples requires the kbgp.io/service-namespace
// pseudo-label, which a Service cannot set.
func TestSampleServiceSelectorsNameTheirNamespaces(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(server.RepoRoot, "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples found: %v", err)
	}
	selectors := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sels []*kbgpv1.LabelSelector
		var ad kbgpv1.BGPAdvertisement
		var policy kbgpv1.BGPPeeringPolicy
		var pool kbgpv1.LoadBalancerIPPool
		switch {
		case yaml.Unmarshal(data, &ad) == nil && ad.Kind == "BGPAdvertisement":
			for _, a := range ad.Spec.Advertisements {
				if a.AdvertisementType == kbgpv1.AdvertisementService {
					sels = append(sels, a.Selector)
				}
			}
		case yaml.Unmarshal(data, &policy) == nil && policy.Kind == "BGPPeeringPolicy":
			for _, vr := range policy.Spec.VirtualRouters {
				if vr.ServiceSelector != nil {
					sels = append(sels, vr.ServiceSelector)
				}
			}
		case yaml.Unmarshal(data, &pool) == nil && pool.Kind == "LoadBalancerIPPool":
			sels = append(sels, pool.Spec.ServiceSelector)
		}
		for _, sel := range sels {
			selectors++
			if !namesNamespace(sel) {
				t.Errorf("%s: a Service selector without %s: %+v", filepath.Base(f), kbgpv1.LabelServiceNamespace, sel)
			}
		}
	}
	if selectors < 3 {
		t.Errorf("%d Service selectors found in the samples, want the advertisement's, the peering policy's and the pool's", selectors)
	}
}

// namesNamespace reports whether sel only matches Services of namespaces it names.
func namesNamespace(sel *kbgpv1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	if _, ok := sel.MatchLabels[kbgpv1.LabelServiceNamespace]; ok {
		return true
	}
	return slices.ContainsFunc(sel.MatchExpressions, func(r kbgpv1.LabelSelectorRequirement) bool {
		return r.Key == kbgpv1.LabelServiceNamespace && r.Operator == "In"
	})
}
