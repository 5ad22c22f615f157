//go:build bench

package bench

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// pollEvery is the FRR poll period: each poll is one vtysh call, and the next starts
// pollEvery after the previous one started (or at once when the call took longer).
const pollEvery = 50 * time.Millisecond

// neighborSample is what one poll of `show bgp neighbors ADDR json` says. at is when
// the answer arrived: a change is dated at the end of the first poll that sees it, so
// measured times are upper bounds, late by at most one poll period plus the call.
type neighborSample struct {
	at        time.Time
	took      time.Duration
	state     string
	accepted  int // IPv4 unicast prefixes accepted from the neighbor
	updates   int // UPDATE messages received (FRR's messageStats.updatesRecv)
	dropped   int // connectionsDropped: session flaps
	connected int // connectionsEstablished
}

func sampleNeighbor(f *netlab.FRR, addr string) (neighborSample, error) {
	start := time.Now()
	n, err := f.Neighbor(addr)
	if err != nil {
		return neighborSample{}, err
	}
	return neighborSample{at: time.Now(), took: time.Since(start), state: n.State,
		accepted: n.AddressFamilyInfo["ipv4Unicast"].AcceptedPrefixCounter, updates: n.MessageStats.UpdatesRecv,
		dropped: n.ConnectionsDropped, connected: n.ConnectionsEstablished}, nil
}

// waitNeighbor polls every pollEvery until cond holds and returns that sample.
func waitNeighbor(t *testing.T, f *netlab.FRR, addr string, timeout time.Duration, cond func(neighborSample) bool) neighborSample {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last neighborSample
	for {
		start := time.Now()
		s, err := sampleNeighbor(f, addr)
		if err != nil {
			t.Fatal(err)
		}
		if cond(s) {
			return s
		}
		last = s
		if time.Now().After(deadline) {
			t.Fatalf("FRR neighbor %s after %s: state %s, %d prefixes accepted", addr, timeout, last.state, last.accepted)
		}
		time.Sleep(time.Until(start.Add(pollEvery)))
	}
}

// fullTable is one cold start seen from FRR: the first poll that saw the session
// Established (or, re-timed by since, the Established on the wire), the first that
// saw every prefix, the answer before that one, and the polling's resolution. FRR
// answers vtysh between UPDATEs, so a large UPDATE being processed stretches the
// gap between answers.
type fullTable struct {
	established, firstRoute, full, beforeFull time.Time
	updates                                   int
	maxGap                                    time.Duration // longest time between two consecutive answers
}

// toFirst is Established → the first poll that saw any prefix: how long the speaker
// takes to start sending (within the poll's resolution).
func (ft fullTable) toFirst() time.Duration { return ft.firstRoute.Sub(ft.established) }

// elapsed is Established → every prefix, an upper bound; atLeast its lower bound (the
// last answer that still lacked prefixes).
func (ft fullTable) elapsed() time.Duration { return ft.full.Sub(ft.established) }
func (ft fullTable) atLeast() time.Duration { return max(0, ft.beforeFull.Sub(ft.established)) }

// since re-times ft from established, the session's Established on the wire. The
// first poll that saw Established can come late: FRR's CLI does not answer while it
// takes in an UPDATE, and a table of a few extended UPDATEs can arrive whole while the
// CLI is silent, which read 0 ms from the poll's Established to the full table.
func (ft fullTable) since(established time.Time) fullTable {
	ft.established = established
	return ft
}

// watchFullTable polls until FRR has accepted want prefixes from addr over an
// Established session; updatesBefore is updatesRecv before the session came up.
func watchFullTable(t *testing.T, f *netlab.FRR, addr string, want, updatesBefore int, timeout time.Duration) fullTable {
	t.Helper()
	var ft fullTable
	var prev time.Time
	s := waitNeighbor(t, f, addr, timeout, func(s neighborSample) bool {
		if !prev.IsZero() {
			ft.maxGap = max(ft.maxGap, s.at.Sub(prev))
		}
		ft.beforeFull, prev = prev, s.at
		if s.state == "Established" && ft.established.IsZero() {
			ft.established = s.at
		}
		if s.state == "Established" && s.accepted > 0 && ft.firstRoute.IsZero() {
			ft.firstRoute = s.at
		}
		return s.state == "Established" && s.accepted >= want
	})
	ft.full = s.at
	// FRR counts UPDATEs over the neighbor's lifetime, across sessions; a short settle
	// lets the End-of-RIB marker (an UPDATE too) and any straggler arrive.
	time.Sleep(500 * time.Millisecond)
	after, err := sampleNeighbor(f, addr)
	if err != nil {
		t.Fatal(err)
	}
	ft.updates = after.updates - updatesBefore
	return ft
}

// routesUnder is the set of prefixes FRR's IPv4 RIB holds inside block
// (`show bgp ipv4 unicast BLOCK longer-prefixes json`), cheap when the block is small
// whatever the size of the rest of the table.
func routesUnder(f *netlab.FRR, block string) (map[string]bool, error) {
	out, err := f.Command("show bgp ipv4 unicast " + block + " longer-prefixes json")
	if err != nil {
		return nil, err
	}
	var table struct {
		Routes map[string]json.RawMessage `json:"routes"`
	}
	if err := json.Unmarshal([]byte(out), &table); err != nil {
		return nil, fmt.Errorf("longer-prefixes %s: %v: %.200s", block, err, out)
	}
	set := make(map[string]bool, len(table.Routes))
	for p := range table.Routes {
		set[p] = true
	}
	return set, nil
}
