package metrics

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/config/crd"
	"kbgp.io/kbgp/internal/bgp"
)

// TestSessionStatesAreOneList pins the session states together: the speaker model's
// list, the peeringState enum of the BGPNodeConfig CRD (generated from the API's
// kubebuilder marker), the API's constants and the state label values of
// kbgp_session_state are one list, in one order.
func TestSessionStatesAreOneList(t *testing.T) {
	want := make([]string, 0, len(bgp.SessionStates))
	for _, s := range bgp.SessionStates {
		want = append(want, string(s))
	}

	defs, err := crd.Definitions()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, d := range defs {
		if d.Spec.Names.Kind != "BGPNodeConfig" {
			continue
		}
		st := d.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
		peer := st.Properties["bgpInstances"].Items.Schema.Properties["peers"].Items.Schema
		for _, v := range peer.Properties["peeringState"].Enum {
			enum = append(enum, string(v.Raw[1:len(v.Raw)-1]))
		}
	}
	if !slices.Equal(enum, want) {
		t.Errorf("CRD peeringState enum %v, speaker model %v", enum, want)
	}
	api := []kbgpv1.PeeringState{kbgpv1.PeeringStateIdle, kbgpv1.PeeringStateConnect, kbgpv1.PeeringStateActive,
		kbgpv1.PeeringStateOpenSent, kbgpv1.PeeringStateOpenConfirm, kbgpv1.PeeringStateEstablished}
	for i, s := range api {
		if string(s) != want[i] {
			t.Errorf("API constant %d is %q, speaker model %q", i, s, want[i])
		}
	}

	var s Sessions
	s.Update([]PeerSample{{LocalASN: 65001, Peer: "pin", State: "Idle"}})
	defer s.Update(nil)
	ch := make(chan *dto.Metric, 16)
	go func() { collectState(ch); close(ch) }()
	var labels []string
	for m := range ch {
		var peer, state string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "peer":
				peer = l.GetValue()
			case "state":
				state = l.GetValue()
			}
		}
		if peer == "pin" {
			labels = append(labels, state)
		}
	}
	slices.Sort(labels)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(labels, sorted) {
		t.Errorf("kbgp_session_state state labels %v, speaker model %v", labels, sorted)
	}
}

// collectState sends the series of kbgp_session_state.
func collectState(out chan<- *dto.Metric) {
	metrics := make(chan prometheus.Metric, 16)
	go func() { sessionState.Collect(metrics); close(metrics) }()
	for m := range metrics {
		var d dto.Metric
		if err := m.Write(&d); err == nil {
			out <- &d
		}
	}
}
