package kubectlbgp

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestStatusLines(t *testing.T) {
	healthy := nodeConfigWithStatus("worker-1", kbgpv1.BGPNodeConfigStatus{
		Conditions: []metav1.Condition{
			condition("Degraded", metav1.ConditionFalse, "ConfigurationSuccessful", ""),
			condition("Ready", metav1.ConditionTrue, "ConfigurationSuccessful", ""),
		},
		BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
			{LocalASN: 65001, RouterID: "10.255.0.42", Peers: []kbgpv1.BGPNodePeerStatus{
				sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateEstablished, time.Hour),
				sessionStatus("tor-b", "10.1.1.2", "", kbgpv1.PeeringStateActive, 0),
			}},
			{LocalASN: 65010, RouterID: "10.255.0.43", Peers: []kbgpv1.BGPNodePeerStatus{
				sessionStatus("rr", "10.9.9.9", "blue", kbgpv1.PeeringStateEstablished, time.Hour),
			}},
		},
	})
	// kbgp is worker-1's pod network.
	healthy.Status.Conditions = append(healthy.Status.Conditions, condition("PodNetworkReady", metav1.ConditionTrue, "ConfigWritten", ""))
	healthy.Status.PodNetwork = &kbgpv1.PodNetworkStatus{InstalledRoutes: 12}
	degraded := nodeConfigWithStatus("worker-0", kbgpv1.BGPNodeConfigStatus{
		Conditions: []metav1.Condition{
			condition("Ready", metav1.ConditionFalse, "ConfigurationFailed", ""),
			condition("Degraded", metav1.ConditionTrue, "ConfigurationFailed", ""),
		},
		FailedResources: []kbgpv1.FailedResource{
			{Kind: "BGPPeerConfig", Name: "rack9", Message: "not found"},
			{Kind: "Secret", Name: "bgp-auth", Message: "has no \"password\" key; peers using it are not started"},
		},
		BGPInstances: []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{
			sessionStatus("tor-a", "10.1.1.1", "", kbgpv1.PeeringStateIdle, 0),
		}}},
	})
	neverReported := nodeConfigWithStatus("worker-2", kbgpv1.BGPNodeConfigStatus{})

	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seen := map[string]*metav1.Time{"worker-0": {Time: now.Add(-7 * time.Second)}, "worker-1": {Time: now.Add(-3 * time.Minute)}}
	got := statusLines([]kbgpv1.BGPNodeConfig{healthy, neverReported, degraded}, seen, now)
	want := []string{
		"NODE       ROUTER-ID                 READY   DEGRADED   PEERS   FAILED   POD-NETWORK      AGENT-SEEN",
		"worker-0   -                         False   True       0/1     2        -                7s",
		"  BGPPeerConfig/rack9: not found",
		`  Secret/bgp-auth: has no "password" key; peers using it are not started`,
		"worker-1   10.255.0.42,10.255.0.43   True    False      2/3     0        True,12-routes   3m",
		"worker-2   -                         -       -          0/0     0        -                -",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

// TestStatusFailedLinesSanitised: a message with a newline must not start a line that
// looks like another node or another failed resource.
func TestStatusFailedLinesSanitised(t *testing.T) {
	nc := nodeConfigWithStatus("worker-1", kbgpv1.BGPNodeConfigStatus{FailedResources: []kbgpv1.FailedResource{
		{Kind: "Secret\r", Name: "a\x00b", Message: "bad\nworker-9   10.0.0.9   True"},
	}})
	got := statusLines([]kbgpv1.BGPNodeConfig{nc}, nil, time.Now())
	if len(got) != 3 {
		t.Fatalf("want header, node and one failed line, got %q", got)
	}
	if want := "  Secret_/a_b: bad_worker-9   10.0.0.9   True"; got[2] != want {
		t.Errorf("failed line %q, want %q", got[2], want)
	}
	if strings.ContainsAny(strings.Join(got, ""), "\r\x00") {
		t.Errorf("control characters left in %q", got)
	}
}
