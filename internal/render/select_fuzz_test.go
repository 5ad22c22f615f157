package render

import (
	"testing"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// FuzzParseSelectors feeds arbitrary node selectors (user input that the schema should
// have vetted, but the operator must not trust) through parsing and assignment: it must
// never panic, and a selector that fails to parse must select no node rather than all.
func FuzzParseSelectors(f *testing.F) {
	f.Add("rack", "rack1", "zone", "In", "a", "rack", "rack1")
	f.Add("-bad", "", "zone", "Exists", "x", "-bad", "")
	f.Add("a/b/c", "v", "k", "NotIn", "", "k", "v")
	f.Add("kbgp.io/x", "y", "k", "Gt", "1", "kbgp.io/x", "y")
	f.Fuzz(func(t *testing.T, labelKey, labelValue, exprKey, op, exprValue, nodeKey, nodeValue string) {
		sel := &kbgpv1.LabelSelector{
			MatchLabels: map[string]kbgpv1.LabelValue{labelKey: kbgpv1.LabelValue(labelValue)},
			MatchExpressions: []kbgpv1.LabelSelectorRequirement{{
				Key: exprKey, Operator: kbgpv1.LabelSelectorOperator(op), Values: []kbgpv1.LabelValue{kbgpv1.LabelValue(exprValue)},
			}},
		}
		cc := clusterConfig("fuzz", 0, sel, instance(65001))
		sels, errs := ParseSelectors([]kbgpv1.BGPClusterConfig{cc})
		if len(sels) != 1 {
			t.Fatalf("got %d selectors for one config", len(sels))
		}
		a := AssignNode(sels, map[string]string{nodeKey: nodeValue})
		if len(errs) > 0 && (a.Winner != nil || sels[0].Selects(nil)) {
			t.Fatalf("selector that failed to parse (%v) selected a node", errs)
		}
	})
}
