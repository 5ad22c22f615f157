package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// clientOptions are the flags that say how to reach the API server.
type clientOptions struct {
	kubeconfig string
	qps        float32
	burst      int
}

func (c *clientOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&c.kubeconfig, "kubeconfig", "", "path to a kubeconfig; in-cluster configuration when empty")
	f.Float32Var(&c.qps, "kube-api-qps", 200, "client-side limit of API requests per second (the server's priority and fairness still applies)")
	f.IntVar(&c.burst, "kube-api-burst", 400, "client-side burst of API requests")
}

// restConfig loads the kubeconfig (or the in-cluster configuration) with the client
// rate limits. controller-runtime's default of 20 requests/s would take minutes to
// write 5,000 node configs.
func (c *clientOptions) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = c.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = c.qps, c.burst
	return cfg, nil
}
