package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestLabelSelectorToMetav1(t *testing.T) {
	tests := []struct {
		name string
		in   *LabelSelector
		want *metav1.LabelSelector
	}{
		{"nil stays nil", nil, nil},
		{"empty selects everything", &LabelSelector{}, &metav1.LabelSelector{}},
		{
			"labels and expressions",
			&LabelSelector{
				MatchLabels: map[string]LabelValue{"rack": "rack1"},
				MatchExpressions: []LabelSelectorRequirement{
					{Key: "zone", Operator: "In", Values: []LabelValue{"a", "b"}},
					{Key: "edge", Operator: "DoesNotExist"},
				},
			},
			&metav1.LabelSelector{
				MatchLabels: map[string]string{"rack": "rack1"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
					{Key: "edge", Operator: metav1.LabelSelectorOpDoesNotExist},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.in.ToMetav1()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The converted selector must keep metav1's semantics: an empty selector matches
// every label set.
func TestLabelSelectorSemantics(t *testing.T) {
	sel, err := metav1.LabelSelectorAsSelector((&LabelSelector{}).ToMetav1())
	if err != nil || !sel.Matches(labels.Set{"any": "thing"}) {
		t.Fatalf("empty selector: %v, matches=%v", err, sel.Matches(labels.Set{"any": "thing"}))
	}
	sel, err = metav1.LabelSelectorAsSelector((&LabelSelector{
		MatchExpressions: []LabelSelectorRequirement{{Key: "zone", Operator: "NotIn", Values: []LabelValue{"a"}}},
	}).ToMetav1())
	if err != nil {
		t.Fatal(err)
	}
	if sel.Matches(labels.Set{"zone": "a"}) || !sel.Matches(labels.Set{"zone": "b"}) {
		t.Fatal("NotIn semantics lost in conversion")
	}
}
