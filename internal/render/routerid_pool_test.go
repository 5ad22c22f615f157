package render

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func hashedNodes(n int, source kbgpv1.RouterIDSource) []kbgpv1.BGPNodeConfig {
	out := make([]kbgpv1.BGPNodeConfig, n)
	for i := range out {
		out[i] = kbgpv1.BGPNodeConfig{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)},
			Status: kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
				{LocalASN: 65001, RouterIDSource: source},
			}},
		}
	}
	return out
}

func TestHighPoolUsage(t *testing.T) {
	cc := func(pool string) *kbgpv1.BGPClusterConfig {
		return &kbgpv1.BGPClusterConfig{Spec: kbgpv1.BGPClusterConfigSpec{BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterIDPool: pool},
		}}}}
	}
	for _, tc := range []struct {
		name  string
		pool  string
		nodes []kbgpv1.BGPNodeConfig
		warn  string
	}{
		{"200 hashed nodes in a /24: more than half used", "172.16.0.0/24", hashedNodes(200, kbgpv1.RouterIDSourceHash),
			"routerIDPool 172.16.0.0/24 of instance 65001 is "},
		{"100 hashed nodes in a /24: fine", "172.16.0.0/24", hashedNodes(100, kbgpv1.RouterIDSourceHash), ""},
		{"200 nodes with their InternalIP take nothing from the pool", "172.16.0.0/24", hashedNodes(200, kbgpv1.RouterIDSourceNodeIPv4), ""},
		{"200 hashed nodes in the default /16: fine", "", hashedNodes(200, kbgpv1.RouterIDSourceHash), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := HighPoolUsage(cc(tc.pool), tc.nodes)
			if tc.warn == "" {
				if len(got) != 0 {
					t.Fatalf("warning %v, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0].String(), tc.warn) || got[0].Fraction() <= 0.5 {
				t.Fatalf("warnings %v, want one starting %q", got, tc.warn)
			}
		})
	}
}
