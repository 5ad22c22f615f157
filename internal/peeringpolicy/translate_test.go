package peeringpolicy

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"kbgp.io/kbgp/internal/testing/golden"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// documentPolicy is the example policy of docs/migration.md, as kbgp writes it
// (families left to their default: both).
func documentPolicy() *kbgpv1.BGPPeeringPolicy {
	return &kbgpv1.BGPPeeringPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "01-bgp-peering-policy"},
		Spec: kbgpv1.BGPPeeringPolicySpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"bgp-policy": "a"}},
			VirtualRouters: []kbgpv1.BGPVirtualRouter{{
				LocalASN:      64512,
				ExportPodCIDR: true,
				Neighbors: []kbgpv1.BGPNeighbor{{
					PeerAddress:             "fc00:f853:ccd:e793::50/128",
					PeerASN:                 64512,
					EBGPMultihopTTL:         ptr.To[int32](10),
					ConnectRetryTimeSeconds: ptr.To[int32](120),
					HoldTimeSeconds:         ptr.To[int32](90),
					KeepAliveTimeSeconds:    ptr.To[int32](30),
					GracefulRestart:         &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
				}},
			}},
		},
	}
}

// TestTranslateGolden renders whole policies into YAML files, so a reviewer sees
// exactly what the operator writes. Regenerate with KBGP_UPDATE_GOLDEN=1.
func TestTranslateGolden(t *testing.T) {
	services := documentPolicy()
	services.Name = "edge"
	services.Spec.NodeSelector = nil
	services.Spec.VirtualRouters = []kbgpv1.BGPVirtualRouter{
		{LocalASN: 65001, ServiceSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"app": "web"}},
			Neighbors: []kbgpv1.BGPNeighbor{
				{PeerAddress: "10.0.0.1", PeerASN: 65010, PeerPort: ptr.To[int32](1179), AuthSecretRef: ptr.To("bgp-auth"),
					Families: []kbgpv1.BGPNeighborFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast}}},
				{PeerAddress: "10.0.0.2/32", PeerASN: 65010, GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true}},
			}},
		// Announces nothing: no advertisement, and its peer is sent nothing.
		{LocalASN: 65002, Neighbors: []kbgpv1.BGPNeighbor{{PeerAddress: "2001:db8::", PeerASN: 65020}}},
	}
	for name, p := range map[string]*kbgpv1.BGPPeeringPolicy{"document.yaml": documentPolicy(), "services-and-silent.yaml": services} {
		t.Run(name, func(t *testing.T) {
			before := p.DeepCopy()
			g, err := Translate(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("Translate mutated the policy (-before +after):\n%s", diff)
			}
			var docs []string
			for _, o := range g.Objects() {
				out, err := yaml.Marshal(o.Object)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, string(out))
			}
			golden.Compare(t, filepath.Join("testdata", name), []byte(strings.Join(docs, "---\n")))
		})
	}
}

// TestTranslateDocument checks the document's example field by field against what
// docs/migration.md says it becomes.
func TestTranslateDocument(t *testing.T) {
	g, err := Translate(documentPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Advertisements) != 1 || len(g.PeerConfigs) != 1 {
		t.Fatalf("got %d advertisements and %d peer configs, want 1 and 1", len(g.Advertisements), len(g.PeerConfigs))
	}
	ad, pc, cc := g.Advertisements[0], g.PeerConfigs[0], g.ClusterConfig
	checks := []struct{ what, got, want string }{
		{"advertisement name", ad.Name, "bgpp-01-bgp-peering-policy-64512"},
		{"advertisement label", ad.Labels["kbgp.io/advert"], "bgpp-01-bgp-peering-policy-64512"},
		{"advertisement type", string(ad.Spec.Advertisements[0].AdvertisementType), "PodCIDR"},
		{"peer config name", pc.Name, "bgpp-01-bgp-peering-policy-64512-fc00-f853-ccd-e793--50"},
		{"connect retry", str(pc.Spec.Timers.ConnectRetryTimeSeconds), "120"},
		{"hold time", str(pc.Spec.Timers.HoldTimeSeconds), "90"},
		{"keepalive", str(pc.Spec.Timers.KeepAliveTimeSeconds), "30"},
		{"graceful restart", str(pc.Spec.GracefulRestart.RestartTimeSeconds), "120"},
		{"multihop", str(pc.Spec.EBGPMultihop), "10"},
		{"families", familyList(pc.Spec.Families), "ipv4/unicast:bgpp-01-bgp-peering-policy-64512 ipv6/unicast:bgpp-01-bgp-peering-policy-64512"},
		{"cluster config name", cc.Name, "bgpp-01-bgp-peering-policy"},
		{"node selector", string(cc.Spec.NodeSelector.MatchLabels["bgp-policy"]), "a"},
		{"local ASN", fmt.Sprint(cc.Spec.BGPInstances[0].LocalASN), "64512"},
		{"peer address (/128 stripped)", cc.Spec.BGPInstances[0].Peers[0].PeerAddress, "fc00:f853:ccd:e793::50"},
		{"peer ASN", fmt.Sprint(cc.Spec.BGPInstances[0].Peers[0].PeerASN), "64512"},
		{"peer config reference", cc.Spec.BGPInstances[0].Peers[0].PeerConfigRef.Name, pc.Name},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, o := range g.Objects() {
		if o.Object.GetLabels()[kbgpv1.PeeringPolicyLabel] != "01-bgp-peering-policy" {
			t.Errorf("%s %s: label %s missing", o.Kind, o.Object.GetName(), kbgpv1.PeeringPolicyLabel)
		}
	}
}

func str(v *int32) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(*v)
}

func familyList(fs []kbgpv1.BGPFamily) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.AFI)+"/"+string(f.SAFI)+":"+string(f.Advertisements.MatchLabels[kbgpv1.AdvertLabel]))
	}
	return strings.Join(out, " ")
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ addr, peer, config string }{
		{"10.0.0.1", "10-0-0-1", "bgpp-p-1-10.0.0.1"},
		{"fc00:f853:ccd:e793::50", "fc00-f853-ccd-e793--50", "bgpp-p-1-fc00-f853-ccd-e793--50"},
		{"::1", "0--1", "bgpp-p-1-0--1"},
		{"2001:db8::", "2001-db8--0", "bgpp-p-1-2001-db8--0"},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := peerName(a); got != tc.peer {
			t.Errorf("peerName(%s) = %q, want %q", tc.addr, got, tc.peer)
		}
		if got := PeerConfigName("p", 1, a); got != tc.config {
			t.Errorf("PeerConfigName(%s) = %q, want %q", tc.addr, got, tc.config)
		}
	}
}

func TestNeighborAddress(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "10.0.0.1", want: "10.0.0.1"},
		{in: "10.0.0.1/32", want: "10.0.0.1"},
		{in: "fc00::50/128", want: "fc00::50"},
		{in: "10.0.0.0/24", err: "a prefix must be a single address"},
		{in: "fe80::1%eth0", err: "not an IP address"},
		{in: "tor-a", err: "not an IP address"},
	} {
		got, err := neighborAddress(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("neighborAddress(%q): error %v, want one containing %q", tc.in, err, tc.err)
			}
		case err != nil || got.String() != tc.want:
			t.Errorf("neighborAddress(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// FuzzNeighborAddress: whatever a user writes as peerAddress, parsing never panics, and
// an accepted address always yields names the API server accepts.
func FuzzNeighborAddress(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "fc00:f853:ccd:e793::50/128", "::", "::ffff:10.0.0.1", "2001:db8::/128", "1.2.3.4/33", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := neighborAddress(s)
		if err != nil {
			return
		}
		if errs := validation.IsDNS1123Label(peerName(a)); len(errs) > 0 {
			t.Errorf("peer name %q of %q: %v", peerName(a), s, errs)
		}
		name := PeerConfigName(strings.Repeat("p", 47), 4294967295, a)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("peer config name %q of %q: %v", name, s, errs)
		}
	})
}
