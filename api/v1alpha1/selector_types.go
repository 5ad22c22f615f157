package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// LabelSelector selects objects by their labels, with the semantics of
// metav1.LabelSelector. It is kbgp's own type so that the schema can bound its sizes
// (CEL cost) and refuse malformed keys, values and operators at admission instead of
// failing later inside a controller. An empty selector selects everything.
//
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || self.matchLabels.all(k, k.size() <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.split('/')[k.split('/').size()-1].size() <= 63)",message="matchLabels: every key must be a qualified label name ([prefix/]name, name at most 63 characters)"
type LabelSelector struct {
	// MatchLabels selects objects whose labels hold every key/value pair listed.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`

	// MatchExpressions are label requirements that must all hold.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelValue is a label value: at most 63 characters, alphanumerics, '-', '_' or '.',
// starting and ending with an alphanumeric.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// LabelSelectorOperator is the relation between a label key and its values.
// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
type LabelSelectorOperator string

// LabelSelectorRequirement is one label requirement of a LabelSelector.
//
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",message="matchExpressions: values must be non-empty for In and NotIn, and empty for Exists and DoesNotExist"
type LabelSelectorRequirement struct {
	// Key is the label key the requirement applies to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.split('/')[self.split('/').size()-1].size() <= 63",message="key must be a qualified label name ([prefix/]name, name at most 63 characters)"
	Key string `json:"key"`

	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator LabelSelectorOperator `json:"operator"`

	// Values are the label values for In and NotIn.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Values []LabelValue `json:"values,omitempty"`
}

// ToMetav1 returns the selector as a metav1.LabelSelector, ready for
// metav1.LabelSelectorAsSelector. A nil selector stays nil (callers decide what nil
// means for their field).
func (s *LabelSelector) ToMetav1() *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	out := &metav1.LabelSelector{}
	if len(s.MatchLabels) > 0 {
		out.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = string(v)
		}
	}
	for _, r := range s.MatchExpressions {
		req := metav1.LabelSelectorRequirement{Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator)}
		for _, v := range r.Values {
			req.Values = append(req.Values, string(v))
		}
		out.MatchExpressions = append(out.MatchExpressions, req)
	}
	return out
}
