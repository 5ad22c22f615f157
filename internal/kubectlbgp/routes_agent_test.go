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
		"NODE       INSTANCE   PEER    PREFIX          NEXT-HOP   COMMUNITIES   LARGE-COMMUNITIES   LOCAL-PREF   AS-PATH   ORIGIN   MED   LINK-BANDWIDTH",
		"worker-r   65001      tor-a   10.244.7.0/24   10.0.0.1   65001:100     -                   -            65001     IGP      -     -",
		"worker-r   65001      tor-a   100.64.1.1/32   10.0.0.1   65535:65281   65001:1:2           -            65001     IGP      -     -",
		"worker-r   65001      ibgp    100.64.1.2/32   10.0.0.1   -             -                   250          -         -        -     -",
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

// TestReceivedRoutesFromTheAgent: the received side says of each route whether it is
// in the node's kernel and why not (a forged reason stays on its line); wide shows the
// AS path with its prepends, the MED and the link bandwidth.
func TestReceivedRoutesFromTheAgent(t *testing.T) {
	med := uint32(20)
	answer := adjribapi.Routes{Node: "worker-r", Side: "received", Peers: []adjribapi.Peer{
		{LocalASN: 65001, Name: "tor-a", Address: "fe80::1%up1", State: "Established", Routes: []adjribapi.Route{
			{Prefix: "0.0.0.0/0", NextHop: "fe80::1", ASPath: []uint32{65100, 65100, 65100}, Origin: "IGP", MED: &med,
				LinkBandwidth: &adjribapi.LinkBandwidth{ASN: 65100, BytesPerSecond: 1250000}, Kernel: &adjribapi.Kernel{Installed: true}},
			{Prefix: "10.9.0.0/16", NextHop: "fe80::1", ASPath: []uint32{65100}, Origin: "IGP",
				LinkBandwidth: &adjribapi.LinkBandwidth{ASN: 65100, BytesPerSecond: 1000}, Kernel: &adjribapi.Kernel{Reason: "over-max-routes"}},
			{Prefix: "172.16.0.0/16", NextHop: "fe80::1", ASPath: []uint32{65100}, Kernel: &adjribapi.Kernel{Reason: "not-in-import-policy\nforged"}}}},
		{LocalASN: 65001, VRF: "red", Name: "pe", Address: "10.1.0.254", State: "Established", Routes: []adjribapi.Route{
			{Prefix: "203.0.113.0/24", NextHop: "10.1.0.254", ASPath: []uint32{65200}}}},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get(adjribapi.ParamSide) != adjribapi.Received {
			http.Error(w, "side", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"default", nil, []string{
			"NODE       INSTANCE    PEER    PREFIX           NEXT-HOP     COMMUNITIES   KERNEL",
			"worker-r   65001       tor-a   0.0.0.0/0        fe80::1      -             yes",
			"worker-r   65001       tor-a   10.9.0.0/16      fe80::1      -             no (over-max-routes)",
			"worker-r   65001       tor-a   172.16.0.0/16    fe80::1      -             no (not-in-import-policy_forged)",
			"worker-r   65001/red   pe      203.0.113.0/24   10.1.0.254   -             -",
		}},
		{"wide", []string{"-o", "wide"}, []string{
			"NODE       INSTANCE    PEER    PREFIX           NEXT-HOP     COMMUNITIES   KERNEL                             LARGE-COMMUNITIES   LOCAL-PREF   AS-PATH             ORIGIN   MED   LINK-BANDWIDTH",
			"worker-r   65001       tor-a   0.0.0.0/0        fe80::1      -             yes                                -                   -            65100 65100 65100   IGP      20    65100:10Mbit/s",
			"worker-r   65001       tor-a   10.9.0.0/16      fe80::1      -             no (over-max-routes)               -                   -            65100               IGP      -     65100:8kbit/s",
			"worker-r   65001       tor-a   172.16.0.0/16    fe80::1      -             no (not-in-import-policy_forged)   -                   -            65100               -        -     -",
			"worker-r   65001/red   pe      203.0.113.0/24   10.1.0.254   -             -                                  -                   -            65200               -        -     -",
		}},
	} {
		out, _, err := run(t, nil, append([]string{"routes", "worker-r", "--received", "--agent-url", srv.URL}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		want := append(tc.want, "", "worker-r 65001 tor-a (fe80::1%up1, Established): 3 received", "worker-r 65001/red pe (10.1.0.254, Established): 1 received")
		if got := strings.TrimRight(out, "\n"); got != strings.Join(want, "\n") {
			t.Errorf("%s: got:\n%s\nwant:\n%s", tc.name, got, strings.Join(want, "\n"))
		}
	}
}

func TestLinkBandwidthCell(t *testing.T) {
	for bytes, want := range map[uint32]string{0: "65001:0bit/s", 1: "65001:8bit/s", 125: "65001:1kbit/s", 125000: "65001:1Mbit/s",
		125000000: "65001:1Gbit/s", 3: "65001:24bit/s", 4294967295: "65001:34359738360bit/s"} {
		if got := linkBandwidthCell(&adjribapi.LinkBandwidth{ASN: 65001, BytesPerSecond: bytes}); got != want {
			t.Errorf("%d B/s: %q, want %q", bytes, got, want)
		}
	}
	if got := linkBandwidthCell(nil); got != "-" {
		t.Errorf("nil: %q", got)
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
