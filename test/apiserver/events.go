package apiserver

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Events returns "Reason: message" of every event about the cluster-scoped object
// kind/name. Such events live in the default namespace.
func (s *Server) Events(ctx context.Context, kind, name string) ([]string, error) {
	list := &corev1.EventList{}
	if err := s.Client.List(ctx, list, client.InNamespace("default")); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out, nil
}
