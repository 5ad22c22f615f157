package kubectlbgp

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/contract"
)

// kubeOptions are kubectl's flags for reaching a cluster (--kubeconfig, --context,
// --cluster, --user, --request-timeout, credentials), bound with client-go's own flag
// definitions so they mean exactly what they mean to kubectl. kubectl does not pass its
// flags to plugins, so the plugin has to accept them itself. --namespace is left out:
// every kbgp kind is cluster-scoped.
type kubeOptions struct {
	kubeconfig string
	overrides  clientcmd.ConfigOverrides
	// newReader replaces the API client in tests of the command wiring.
	newReader func() (client.Reader, error)
}

func (k *kubeOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&k.kubeconfig, clientcmd.RecommendedConfigPathFlag, "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	names := clientcmd.RecommendedConfigOverrideFlags("")
	clientcmd.BindAuthInfoFlags(&k.overrides.AuthInfo, f, names.AuthOverrideFlags)
	clientcmd.BindClusterFlags(&k.overrides.ClusterInfo, f, names.ClusterOverrideFlags)
	names.ContextOverrideFlags.ClusterName.BindStringFlag(f, &k.overrides.Context.Cluster)
	names.ContextOverrideFlags.AuthInfoName.BindStringFlag(f, &k.overrides.Context.AuthInfo)
	names.CurrentContext.BindStringFlag(f, &k.overrides.CurrentContext)
	names.Timeout.BindStringFlag(f, &k.overrides.Timeout)
}

// restConfig is the cluster and credentials the flags and kubeconfig name.
func (k *kubeOptions) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &k.overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	return cfg, nil
}

// reader returns a client that can only get and list: the type makes the plugin's
// read-only promise checkable by the compiler.
func (k *kubeOptions) reader() (client.Reader, error) {
	if k.newReader != nil {
		return k.newReader()
	}
	cfg, err := k.restConfig()
	if err != nil {
		return nil, err
	}
	scheme, err := contract.NewScheme()
	if err != nil {
		return nil, fmt.Errorf("build scheme: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	return c, nil
}
