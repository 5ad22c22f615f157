package netlab

import (
	"net/url"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
)

// RelayedKubeconfig gives a process inside ns a kubeconfig for an API server of the
// test process: it relays 127.0.0.1:6443 inside ns to apiHost (the server's
// https://host:port, whose certificate is valid for 127.0.0.1), has write put a
// kubeconfig at the returned path, and points its clusters at the relay, which it
// returns too (tests pause it to cut the API server off).
func (l *Lab) RelayedKubeconfig(ns *Namespace, apiHost, name string, write func(path string) error) (string, *Relay) {
	l.t.Helper()
	target, err := url.Parse(apiHost)
	if err != nil {
		l.t.Fatalf("netlab: RelayedKubeconfig: %v", err)
	}
	relay := l.UnixRelay(ns, "127.0.0.1:6443", target.Host)
	path := filepath.Join(l.Dir(), name+".kubeconfig")
	if err := write(path); err != nil {
		l.t.Fatalf("netlab: RelayedKubeconfig: %v", err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		l.t.Fatalf("netlab: RelayedKubeconfig: %v", err)
	}
	for _, c := range cfg.Clusters {
		c.Server = "https://" + relay.Addr()
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		l.t.Fatalf("netlab: RelayedKubeconfig: %v", err)
	}
	return path, relay
}
