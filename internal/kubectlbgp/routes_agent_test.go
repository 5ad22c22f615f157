package kubectlbgp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kbgp.io/kbgp/internal/adjribapi"
)

// agentServer answers adjribapi.Path in two pages, the first ending inside tor-a's
// routes, and records the queries.
func agentServer(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var queries []string
	lp := uint32(250)
	pages := map[string]adjribapi.Routes{
		"": {Node: "worker-r", Side: "advertised", Continue: "next", Peers: []adjribapi.Peer{
			{LocalASN: 65001, Name: "tor-a", Address: "10.0.0.254", State: "Established", Routes: []adjribapi.Route{
				{Prefix: "10.244.7.0/24", NextHop: "10.0.0.1", ASPath: []uint32{65001}, Communities: []string{"65001:100"}, Origin: "IGP"}}}}},
		"next": {Node: "worker-r", Side: "advertised", Peers: []adjribapi.Peer{
			{LocalASN: 65001, Name: "tor-a", Address: "10.0.0.254", State: "Established", Routes: []adjribapi.Route{
				{Prefix: "100.64.1.1/32", NextHop: "10.0.0.1", ASPath: []uint32{65001}, Communities: []string{"65535:65281"}, LargeCommunities: []string{"65001:1:2"}, Origin: "IGP"}}},
			{LocalASN: 65001, VRF: "red", Name: "pe", Address: "10.1.0.254", State: "Active", Routes: []adjribapi.Route{}},
			{LocalASN: 65001, VRF: "red", Name: "rr", Address: "10.1.0.253", Error: "speaker gone"},
			{LocalASN: 65001, Name: "ibgp", Address: "10.0.0.9", Routes: []adjribapi.Route{{Prefix: "100.64.1.2/32", NextHop: "10.0.0.1", LocalPreference: &lp}}}}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		if r.URL.Path != adjribapi.Path {
			http.NotFound(w, r)
			return
		}
		page, ok := pages[r.URL.Query().Get(adjribapi.ParamContinue)]
		if !ok {
			http.Error(w, "bad token", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	return srv, &queries
}

func TestRoutesFromTheAgent(t *testing.T) {
	srv, queries := agentServer(t)
	out, _, err := run(t, nil, "routes", "worker-r", "--agent-url", srv.URL, "--prefix", "100.64.0.0/10", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"NODE       INSTANCE   PEER    PREFIX          NEXT-HOP   COMMUNITIES   LARGE-COMMUNITIES   LOCAL-PREF   AS-PATH   ORIGIN",
		"worker-r   65001      tor-a   10.244.7.0/24   10.0.0.1   65001:100     -                   -            65001     IGP",
		"worker-r   65001      tor-a   100.64.1.1/32   10.0.0.1   65535:65281   65001:1:2           -            65001     IGP",
		"worker-r   65001      ibgp    100.64.1.2/32   10.0.0.1   -             -                   250          -         -",
		"",
		"worker-r 65001 tor-a (10.0.0.254, Established): 2 advertised",
		"worker-r 65001/red pe (10.1.0.254, Active): 0 advertised",
		"worker-r 65001/red rr (10.1.0.253, -): not read: speaker gone",
		"worker-r 65001 ibgp (10.0.0.9, -): 1 advertised",
	}
	if got := strings.TrimRight(out, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	wantQueries := []string{"limit=10000&prefix=100.64.0.0%2F10&side=advertised", "continue=next&limit=10000&prefix=100.64.0.0%2F10&side=advertised"}
	if strings.Join(*queries, " ") != strings.Join(wantQueries, " ") {
		t.Errorf("queries %q, want %q", *queries, wantQueries)
	}
}

func TestRoutesFromTheAgentRefusals(t *testing.T) {
	for code, want := range map[int]string{
		http.StatusUnauthorized: "pod proxy does not pass on",
		http.StatusForbidden:    "get on pods/proxy",
		http.StatusBadRequest:   "answered 400",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no\nforged line", code) }))
		_, _, err := run(t, nil, "routes", "worker-r", "--received", "--agent-url", srv.URL)
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%d: %v, want %q on one line", code, err, want)
		}
	}
	if _, _, err := run(t, nil, "routes", "--advertised"); err == nil {
		t.Error("--advertised without NODE: no error")
	}
	if _, _, err := run(t, nil, "routes", "n1", "--advertised", "--computed"); err == nil {
		t.Error("--advertised with --computed: no error")
	}
}

func TestAgentPodProxyPath(t *testing.T) {
	agent := func(name, node string, phase corev1.PodPhase, args ...string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kbgp-system", Name: name, Labels: agentLabels},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "agent", Args: args,
				Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}}}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	other := agent("other", "n1", corev1.PodRunning)
	other.Labels = map[string]string{"app.kubernetes.io/name": "kbgp", "app.kubernetes.io/component": "operator"}
	for _, tc := range []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{"plain", []corev1.Pod{agent("a1", "n1", corev1.PodRunning), agent("a2", "n2", corev1.PodRunning), other},
			"/api/v1/namespaces/kbgp-system/pods/a1:9090/proxy"},
		{"metrics-secure", []corev1.Pod{agent("a1", "n1", corev1.PodRunning, "agent", "--metrics-secure")},
			"/api/v1/namespaces/kbgp-system/pods/https:a1:9090/proxy"},
		{"the running one of two", []corev1.Pod{agent("old", "n1", corev1.PodPending), agent("new", "n1", corev1.PodRunning)},
			"/api/v1/namespaces/kbgp-system/pods/new:9090/proxy"},
		{"none on the node", []corev1.Pod{agent("a2", "n2", corev1.PodRunning), other}, ""},
	} {
		got, err := agentPodProxyPath(tc.pods, "n1")
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
}
