package agent_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestSecureMetricsNeedAnAuthorisedCaller runs the agent with --metrics-secure against
// the real API server: /metrics over HTTPS refuses a caller without a token and one
// whose token the API server does not authorise, and serves one that may get /metrics.
// The routes beside them (/bgp/routes) need their own right: the scraper is refused
// them, a caller that may get /bgp/routes is served them.
func TestSecureMetricsNeedAnAuthorisedCaller(t *testing.T) {
	ensureNamespace(t)
	ctx := context.Background()
	const node = "secure-metrics"
	create(t, testNode(node), nodeConfig(node))
	addr := freeLoopbackAddr(t)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(runCtx, server.Config, agent.Options{NodeName: node, Namespace: namespace, MetricsAddress: addr, HealthProbeAddress: "0",
			MetricsSecure: true, Routers: &bgpfake.Factory{}, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil))})
	}()
	t.Cleanup(func() { cancel(); <-done })

	clientset := kubernetes.NewForConfigOrDie(server.Config)
	token := func(sa string) string {
		if _, err := clientset.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("token for %s: %v", sa, err)
		}
		return tr.Status.Token
	}
	scraper, stranger, reader := token("metrics-scraper"), token("metrics-stranger"), token("routes-reader")
	create(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kbgp-metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kbgp-metrics-reader"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kbgp-metrics-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "metrics-scraper"}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kbgp-routes-reader"},
			Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{adjribapi.Path}, Verbs: []string{"get"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kbgp-routes-reader"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kbgp-routes-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "routes-reader"}}})

	// The agent's certificate is self-signed: the test checks authorisation, not trust.
	httpc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	getPath := func(path, token string) (int, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
	get := func(token string) (int, error) {
		code, _, err := getPath("/metrics", token)
		return code, err
	}
	wait.Eventually(t, 30*time.Second, "the authorised scraper served", func() bool {
		code, _ := get(scraper)
		return code == http.StatusOK
	})
	for name, tok := range map[string]string{"no token": "", "a token without the right": stranger} {
		if code, err := get(tok); err != nil || (code != http.StatusUnauthorized && code != http.StatusForbidden) {
			t.Errorf("%s: %d %v, want 401 or 403", name, code, err)
		}
	}
	routes := adjribapi.Path + "?side=advertised"
	for name, tok := range map[string]string{"no token": "", "a token without the right": stranger, "the scraper": scraper} {
		if code, body, err := getPath(routes, tok); err != nil || (code != http.StatusUnauthorized && code != http.StatusForbidden) {
			t.Errorf("routes, %s: %d %s %v, want 401 or 403", name, code, body, err)
		}
	}
	code, body, err := getPath(routes, reader)
	var answer adjribapi.Routes
	if err != nil || code != http.StatusOK || json.Unmarshal(body, &answer) != nil || answer.Node != node || answer.Side != adjribapi.Advertised {
		t.Errorf("routes, the reader: %d %s %v, want 200 with the node's answer", code, body, err)
	}
	// A token the API server cannot review is refused too (controller-runtime's filter
	// answers 500 for a failed review rather than 401).
	if code, err := get("not-a-token"); err != nil || code < 400 {
		t.Errorf("a forged token: %d %v, want a refusal", code, err)
	}
}
