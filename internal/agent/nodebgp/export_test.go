package nodebgp

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// SecretWatch exposes secretWatch to the package's tests against the API server.
type SecretWatch struct{ w *secretWatch }

func NewSecretWatch(c kubernetes.Interface, namespace string, changed func()) SecretWatch {
	return SecretWatch{newSecretWatch(c, namespace, changed)}
}

func (s SecretWatch) Secret(name string) (*corev1.Secret, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s.w.Secret(ctx, name)
}

func (s SecretWatch) Keep(names ...string) { s.w.Keep(names) }
func (s SecretWatch) Watched() []string    { return s.w.Watched() }
func (s SecretWatch) Stop()                { s.w.Stop() }
