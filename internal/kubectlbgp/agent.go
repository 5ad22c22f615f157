package kubectlbgp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/adjribapi"
)

// agentLabels select the agent's pods: the DaemonSet's (config/agent).
var agentLabels = labels.Set{"app.kubernetes.io/name": "kbgp", "app.kubernetes.io/component": "agent"}

// defaultMetricsPort is the agent's metrics port when its pod does not name one.
const defaultMetricsPort = 9080

// maxAnswer bounds one page the plugin reads from an agent (MaxLimit routes with long
// attribute lists stay far below it).
const maxAnswer = 64 << 20

// agentGet asks a node's agent for a path with a query and returns the body of a 200.
type agentGet func(ctx context.Context, path string, query url.Values) ([]byte, error)

// agentPodProxyPath is where the API server proxies to the agent of node: the pod
// proxy subresource of the agent's pod on the node, at its metrics port, over HTTPS
// when the agent serves metrics securely (the API server does not check the agent's
// self-signed certificate for pod proxying).
func agentPodProxyPath(pods []corev1.Pod, node string) (string, error) {
	var found []corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == node && p.DeletionTimestamp == nil && agentLabels.AsSelector().Matches(labels.Set(p.Labels)) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("no kbgp agent pod on node %s (pods labelled %s)", node, agentLabels)
	}
	// A rolling update can leave two for a moment: the running one answers.
	slices.SortStableFunc(found, func(a, b corev1.Pod) int {
		return boolRank(b.Status.Phase == corev1.PodRunning) - boolRank(a.Status.Phase == corev1.PodRunning)
	})
	pod := found[0]
	port, scheme := defaultMetricsPort, ""
	for _, c := range pod.Spec.Containers {
		if c.Name != "agent" {
			continue
		}
		for _, p := range c.Ports {
			if p.Name == "metrics" {
				port = int(p.ContainerPort)
			}
		}
		for _, a := range slices.Concat(c.Command, c.Args) {
			if a == "--metrics-secure" || a == "--metrics-secure=true" {
				scheme = "https:"
			}
		}
	}
	return fmt.Sprintf("/api/v1/namespaces/%s/pods/%s%s:%d/proxy", pod.Namespace, scheme, pod.Name, port), nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// agentThroughAPIServer reaches the agent of node through the API server's pod proxy
// with the user's credentials: the user needs list on pods and get on pods/proxy in
// the agent's namespace (docs/kubectl-bgp.md).
func agentThroughAPIServer(ctx context.Context, cfg *rest.Config, r client.Reader, node, namespace string) (agentGet, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels(agentLabels)); err != nil {
		return nil, fmt.Errorf("find the agent of node %s: %w", node, err)
	}
	base, err := agentPodProxyPath(pods.Items, node)
	if err != nil {
		return nil, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return httpAgent(hc, strings.TrimSuffix(cfg.Host, "/")+base), nil
}

// httpAgent asks the agent at base (a URL) with hc.
func httpAgent(hc *http.Client, base string) agentGet {
	return func(ctx context.Context, path string, query url.Values) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path+"?"+query.Encode(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("ask the agent: %w", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		if err != nil {
			return nil, fmt.Errorf("read the agent's answer: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, agentRefusal(resp.StatusCode, body)
		}
		return body, nil
	}
}

// agentRefusal explains a status other than 200, which either the API server (the
// user's right to the pod proxy) or the agent (its query, or --metrics-secure) sent.
func agentRefusal(code int, body []byte) error {
	msg := clean(strings.TrimSpace(string(body)))
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	switch code {
	case http.StatusUnauthorized:
		return fmt.Errorf("the agent refused the request (401 %s): with --metrics-secure the agent needs a bearer token, which the API server's pod proxy does not pass on; see docs/kubectl-bgp.md", msg)
	case http.StatusForbidden:
		return fmt.Errorf("refused (403 %s): reading a node's routes needs get on pods/proxy in the agents' namespace (docs/kubectl-bgp.md)", msg)
	}
	return fmt.Errorf("the agent answered %d: %s", code, msg)
}

// agentRoutes reads every page of one side of the node's routes.
func agentRoutes(ctx context.Context, get agentGet, side, peer, prefix string) (adjribapi.Routes, error) {
	var all adjribapi.Routes
	q := url.Values{adjribapi.ParamSide: {side}, adjribapi.ParamLimit: {strconv.Itoa(adjribapi.MaxLimit)}}
	if peer != "" {
		q.Set(adjribapi.ParamPeer, peer)
	}
	if prefix != "" {
		q.Set(adjribapi.ParamPrefix, prefix)
	}
	for {
		body, err := get(ctx, adjribapi.Path, q)
		if err != nil {
			return all, err
		}
		var page adjribapi.Routes
		if err := json.Unmarshal(body, &page); err != nil {
			return all, fmt.Errorf("the agent's answer is not understood: %w", err)
		}
		all.Node, all.Side = page.Node, page.Side
		all.Peers = mergePeers(all.Peers, page.Peers)
		if page.Continue == "" {
			return all, nil
		}
		q.Set(adjribapi.ParamContinue, page.Continue)
	}
}

// mergePeers appends a page's peers, joining a peer cut by the previous page's end.
func mergePeers(have, next []adjribapi.Peer) []adjribapi.Peer {
	for _, p := range next {
		if n := len(have); n > 0 && samePeer(have[n-1], p) {
			have[n-1].Routes = append(have[n-1].Routes, p.Routes...)
			continue
		}
		have = append(have, p)
	}
	return have
}

func samePeer(a, b adjribapi.Peer) bool {
	return a.LocalASN == b.LocalASN && a.VRF == b.VRF && a.Name == b.Name
}

// agent is how the plugin reaches node's agent: at agentURL when given, else through
// the API server's pod proxy.
func (k *kubeOptions) agent(ctx context.Context, r client.Reader, node, namespace, agentURL string) (agentGet, error) {
	if agentURL != "" {
		return httpAgent(http.DefaultClient, strings.TrimSuffix(agentURL, "/")), nil
	}
	cfg, err := k.restConfig()
	if err != nil {
		return nil, err
	}
	return agentThroughAPIServer(ctx, cfg, r, node, namespace)
}
