package intent

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// TestAnAddressHasOneOwner: the review's second claim, across Services. Inside
// externalIPPrefixes that allow it, a Service could claim another namespace's address
// or the cluster IP of `kubernetes`, and the node announced it: as the only source
// where the owner is not announced from this node (externalTrafficPolicy Local without
// a local endpoint), or alongside the owner. The strongest, oldest claim owns an
// address; a claim from another namespace, or any other Service's claim on a cluster
// IP, is not announced and is named.
func TestAnAddressHasOneOwner(t *testing.T) {
	everything := []kbgpv1.CIDR{"10.0.0.0/8", "198.51.100.0/24", "203.0.113.0/24"}
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{
		serviceAdWithin("all", nil, "65001:1", everything, everything, kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP),
	}}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	p := exports.PeerKey{Name: "a"}
	svc := func(ns, name string, created int64, external string, lb ...string) (types.NamespacedName, *corev1.Service) {
		s := lbService(name, nil, lb...)
		s.Namespace, s.CreationTimestamp = ns, metav1.Unix(created, 0)
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil
		s.Spec.ExternalIPs = nil
		if external != "" {
			s.Spec.ExternalIPs = []string{external}
		}
		return types.NamespacedName{Namespace: ns, Name: name}, &s
	}
	kubernetes := func() (types.NamespacedName, *corev1.Service) {
		k, s := svc("default", "kubernetes", 1, "")
		s.Spec.Type, s.Spec.ClusterIP, s.Spec.ClusterIPs = corev1.ServiceTypeClusterIP, "10.96.0.1", []string{"10.96.0.1"}
		return k, s
	}
	// local is a Service with externalTrafficPolicy Local and no endpoint on this node:
	// the owner this node does not announce.
	local := func(k types.NamespacedName, s *corev1.Service) (types.NamespacedName, *corev1.Service) {
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		return k, s
	}
	type set struct {
		key types.NamespacedName
		svc *corev1.Service
	}
	at := func(k types.NamespacedName, s *corev1.Service) set { return set{k, s} }
	for _, tc := range []struct {
		name     string
		services []set
		// exported is whether the node announces the address; refused the message of
		// the last Service.
		addr     string
		exported bool
		refused  string
	}{
		{
			name:     "another namespace's external IP, owner not announced here",
			services: []set{at(local(svc("shop", "web", 1000, "203.0.113.10"))), at(svc("other", "squat", 2000, "203.0.113.10"))},
			addr:     "203.0.113.10",
			refused:  "ExternalIP 203.0.113.10 is the ExternalIP of Service shop/web of another namespace: not announced",
		},
		{
			name:     "another namespace's load-balancer IP, claimed by an older Service",
			services: []set{at(local(svc("shop", "web", 3000, "", "203.0.113.11"))), at(svc("other", "squat", 2000, "203.0.113.11"))},
			addr:     "203.0.113.11",
			refused:  "ExternalIP 203.0.113.11 is the LoadBalancerIP of Service shop/web of another namespace: not announced",
		},
		{
			name:     "the cluster IP of kubernetes, from its own namespace",
			services: []set{at(kubernetes()), at(svc("default", "squat", 2000, "10.96.0.1"))},
			addr:     "10.96.0.1",
			refused:  "ExternalIP 10.96.0.1 is the ClusterIP of Service default/kubernetes: not announced",
		},
		{
			name:     "the cluster IP of kubernetes, the squatter older",
			services: []set{at(svc("other", "squat", 0, "", "10.96.0.1")), at(kubernetes())},
			addr:     "10.96.0.1",
		},
		{
			name:     "an older Service of another namespace keeps its external IP",
			services: []set{at(svc("other", "old", 1000, "203.0.113.12")), at(local(svc("shop", "new", 2000, "203.0.113.12")))},
			addr:     "203.0.113.12",
			exported: true,
		},
		{
			name:     "the same namespace shares",
			services: []set{at(local(svc("shop", "web", 1000, "203.0.113.13"))), at(svc("shop", "web2", 2000, "203.0.113.13"))},
			addr:     "203.0.113.13",
			exported: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exports.New("worker-1")
			_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
			x.AddPeer(p, peerAddr(p.Name), nil, serviceRules(rules))
			for _, s := range tc.services {
				x.SetService(s.key, s.svc, nil)
			}
			if got := hasPrefix(x.Export(p), tc.addr+"/32"); got != tc.exported {
				t.Errorf("%s exported %v, want %v", tc.addr, got, tc.exported)
			}
			last := tc.services[len(tc.services)-1].key
			if got := x.RefusedOf(last); got != tc.refused {
				t.Errorf("refused %q, want %q", got, tc.refused)
			}
		})
	}
}

// TestTheOwnersLeavingAnnouncesTheNext: once the owner of an address is gone, the next
// claimant announces it, and its refusal is among the touched ones, so the agent
// clears it from the node's status.
func TestTheOwnersLeavingAnnouncesTheNext(t *testing.T) {
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{serviceAd("all", nil, "65001:1", kbgpv1.ServiceExternalIP)}}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	x := exports.New("worker-1")
	_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	p := exports.PeerKey{Name: "a"}
	x.AddPeer(p, peerAddr(p.Name), nil, serviceRules(rules))
	owner, squat := lbService("web", nil), lbService("squat", nil)
	owner.CreationTimestamp, owner.Spec.ExternalTrafficPolicy = metav1.Unix(1000, 0), corev1.ServiceExternalTrafficPolicyLocal
	squat.Namespace, squat.CreationTimestamp = "other", metav1.Unix(2000, 0)
	ko, ks := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "other", Name: "squat"}
	x.SetService(ko, &owner, []discoveryv1.EndpointSlice{slice("web", "worker-2", ptr.To(true))})
	x.SetService(ks, &squat, nil)
	if x.RefusedOf(ks) == "" || len(x.Export(p)) != 0 {
		t.Fatalf("squatter: refused %q, exported %v", x.RefusedOf(ks), x.Export(p))
	}
	x.TouchedRefusals()
	changes := x.SetService(ko, nil, nil)
	if chs := changes[bgp.InstanceKey{}]; len(changes) != 1 || len(chs) != 1 || len(chs[0].Set) != 1 || chs[0].Set[0].Prefix != host("198.51.100.77") {
		t.Errorf("owner deleted: changes %v, want the squatter's address set", changes)
	}
	if got := x.TouchedRefusals(); len(got) != 2 || got[0] != ks || x.RefusedOf(ks) != "" {
		t.Errorf("touched %v, squatter refused %q: want both touched and no refusal", got, x.RefusedOf(ks))
	}
	if got := x.Refused(); len(got) != 0 {
		t.Errorf("Refused() = %v", got)
	}
}

// BenchmarkContestedAddress: n Services of n namespaces claim one external IP, which an
// older Service owns; what one more claimant's arrival and departure cost the agent's
// worker. The claims are O(1); merging the prefix's sources still visits each.
func BenchmarkContestedAddress(b *testing.B) {
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{serviceAd("all", nil, "65001:1", kbgpv1.ServiceExternalIP)}}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := exports.New("worker-1")
			_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
			x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
			claimant := func(i int) (types.NamespacedName, *corev1.Service) {
				s := lbService("web", nil)
				s.Namespace, s.CreationTimestamp = fmt.Sprintf("ns-%05d", i), metav1.Unix(int64(1000+i), 0)
				return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}, &s
			}
			for i := range n {
				k, s := claimant(i)
				x.SetService(k, s, nil)
			}
			key, svc := claimant(n)
			for b.Loop() {
				x.SetService(key, svc, nil)
				x.SetService(key, nil, nil)
				x.TouchedRefusals()
			}
		})
	}
}
