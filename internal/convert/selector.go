package convert

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// ciliumServiceLabels are Cilium's pseudo-labels for a Service's name and namespace
// and kbgp's for the same: a selector on them keeps its meaning under the new key.
var ciliumServiceLabels = map[string]string{
	"io.kubernetes.service.name":      kbgpv1.LabelServiceName,
	"io.kubernetes.service.namespace": kbgpv1.LabelServiceNamespace,
}

var operators = []string{"In", "NotIn", "Exists", "DoesNotExist"}

// selectorAt converts the label selector at parent's member key (Cilium's and MetalLB's
// selectors have the shape of metav1.LabelSelector); nil when absent. rename maps label
// keys that have another name in kbgp.
//
// A requirement kbgp cannot hold is reported, and the selector then selects more than
// the original did: the warning says so, since selecting more is never harmless.
func selectorAt(parent node, key string, rename map[string]string) *kbgpv1.LabelSelector {
	return selectorOf(parent.obj(key), rename)
}

// selectorOf converts the selector at n, which is absent or an object.
func selectorOf(n node, rename map[string]string) *kbgpv1.LabelSelector {
	if !n.ok {
		return nil
	}
	sel := &kbgpv1.LabelSelector{}
	renamed := func(k string) string {
		if to, ok := rename[k]; ok {
			return to
		}
		return k
	}
	for _, e := range n.obj("matchLabels").entries() {
		v, ok := e.asStr()
		if !ok {
			continue
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			e.warn("is not a valid label value: requirement dropped, the selector selects more")
			continue
		}
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]kbgpv1.LabelValue{}
		}
		sel.MatchLabels[renamed(e.key)] = kbgpv1.LabelValue(v)
	}
	for _, item := range n.list("matchExpressions") {
		if !item.isObj() {
			continue
		}
		k, _ := item.str("key")
		op, _ := item.str("operator")
		values := item.strList("values")
		if k == "" || !slices.Contains(operators, op) {
			item.warn("is not a requirement kbgp can hold (key, and operator In, NotIn, Exists or DoesNotExist): dropped, the selector selects more")
			continue
		}
		req := kbgpv1.LabelSelectorRequirement{Key: renamed(k), Operator: kbgpv1.LabelSelectorOperator(op)}
		for _, v := range values {
			req.Values = append(req.Values, kbgpv1.LabelValue(v))
		}
		sel.MatchExpressions = append(sel.MatchExpressions, req)
	}
	return sel
}
