package v1alpha1

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The pseudo-labels a Service selector (of an advertisement or an address pool) can
// match besides the Service's own labels.
const (
	LabelServiceName      = labelDomain + "/service-name"
	LabelServiceNamespace = labelDomain + "/service-namespace"

	// labelDomain is reserved: Service labels under it do not count.
	labelDomain = "kbgp.io"
)

// ServiceLabels are the labels a Service selector matches for the Service with obj as
// its metadata: the Service's own labels, except those under kbgp.io/ (a Service must
// not claim kbgp's names), then the two pseudo-labels, which always win, so a Service in
// one namespace cannot label itself into an advertisement or pool scoped to another.
func ServiceLabels(obj metav1.ObjectMeta) labels.Set {
	set := make(labels.Set, len(obj.Labels)+2)
	for k, v := range obj.Labels {
		if !reservedLabel(k) {
			set[k] = v
		}
	}
	set[LabelServiceName], set[LabelServiceNamespace] = obj.Name, obj.Namespace
	return set
}

// reservedLabel reports whether a label key is under kbgp's prefix, kbgp.io/ or a
// subdomain of it.
func reservedLabel(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	return ok && (prefix == labelDomain || strings.HasSuffix(prefix, "."+labelDomain))
}
