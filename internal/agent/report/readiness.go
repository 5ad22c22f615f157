package report

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// defaultReadinessWait bounds how long a starting agent waits for its sessions before
// it reports ready anyway: a router that is down must not stop a rollout for ever.
const defaultReadinessWait = 2 * time.Minute

// Readiness gates the agent's readiness on BGP, so that a DaemonSet rollout (with
// minReadySeconds) moves to the next node only once this one is back: after a start,
// the agent is ready when every session that was Established before it started — as
// the previous agent's status says — is Established again, or when maxWait has passed.
// It then stays ready: readiness is about the rollout, not about later session changes,
// which status, events and metrics report.
type Readiness struct {
	start   time.Time
	maxWait time.Duration

	mu sync.Mutex
	// expected are the sessions (instance/peer) that were up before the start; nil until
	// the first reconcile read the node's status.
	expected []string
	// waiting are the expected sessions not Established again in the last snapshot.
	waiting []string
	ready   bool
}

func NewReadiness(start time.Time, maxWait time.Duration) *Readiness {
	if maxWait <= 0 {
		maxWait = defaultReadinessWait
	}
	return &Readiness{start: start, maxWait: maxWait}
}

// Expect records, once, the sessions the node's status shows Established as found at
// the first reconcile: the previous agent's last word (nil: the node runs no BGP).
func (r *Readiness) Expect(nc *kbgpv1.BGPNodeConfig) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.expected != nil {
		return
	}
	r.expected = []string{}
	if nc == nil {
		r.ready = true
		return
	}
	for _, inst := range nc.Status.BGPInstances {
		for _, p := range inst.Peers {
			if p.PeeringState == kbgpv1.PeeringStateEstablished {
				r.expected = append(r.expected, sessionName(uint32(inst.LocalASN), p.VRF, p.Name))
			}
		}
	}
	r.waiting = slices.Clone(r.expected)
	r.ready = len(r.expected) == 0
}

// observe checks a snapshot of the speakers against the expected sessions.
func (r *Readiness) observe(snap map[bgp.InstanceKey]speakers.InstanceSnapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ready || r.expected == nil {
		return
	}
	up := map[string]bool{}
	for key, inst := range snap {
		for name, p := range inst.Peers {
			if p.Status.State == bgp.StateEstablished {
				up[sessionName(key.LocalASN, key.VRF, name)] = true
			}
		}
	}
	r.waiting = slices.DeleteFunc(slices.Clone(r.expected), func(s string) bool { return up[s] })
	r.ready = len(r.waiting) == 0
}

// Check is the readyz check.
func (r *Readiness) Check(*http.Request) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ready || time.Since(r.start) >= r.maxWait {
		return nil
	}
	if r.expected == nil {
		return errors.New("the node's BGP configuration has not been read yet")
	}
	return fmt.Errorf("waiting (at most %s) for sessions that were up before the restart: %s", r.maxWait, strings.Join(r.waiting, ", "))
}

// sessionName names a session across instances and VRFs: ASN[/VRF]/peer.
func sessionName(asn uint32, vrf, peer string) string {
	return bgp.InstanceKey{LocalASN: asn, VRF: vrf}.String() + "/" + peer
}
