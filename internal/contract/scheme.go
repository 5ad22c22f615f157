package contract

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// NewScheme returns a scheme with the core and kbgp kinds: what the operator, the
// agent, the lab and the kubectl plugin read and write.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := kbgpv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}
