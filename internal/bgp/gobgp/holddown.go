package gobgp

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// Prefix-limit hold-down. GoBGP closes a session whose peer sends more routes than a
// family's limit (Cease, "maximum number of prefixes reached") and keeps the peer
// administratively down (ADMIN_STATE_PFX_CT) for good. kbgp instead holds it down with
// a back-off and then lets it reconnect, so a peer that now sends fewer routes comes
// back ("until the count drops"); raising or removing the limit re-enables it at once.
// The hold-down doubles from holdDownFirst to holdDownMax while the peer exceeds its
// limit again after each retry; it starts afresh once a session stayed Established for
// holdDownMax (a peer exceeds only once Established, so Established alone says nothing).
// Variables so that tests can shorten them.
var (
	holdDownFirst = 30 * time.Second
	holdDownMax   = 10 * time.Minute
	enableSettle  = 10 * time.Second
)

// heldDown is the hold-down state of one peer.
type heldDown struct {
	since   time.Time
	backoff time.Duration
	retry   *time.Timer
}

// noteAdminState records the peer's admin state from a watch event or a listing; it
// reports whether the peer has just been held down. Call with r.mu held.
func (r *router) noteAdminState(addr netip.Addr, s *session, admin api.PeerState_AdminState, at time.Time) bool {
	if admin != api.PeerState_ADMIN_STATE_PFX_CT {
		s.enabledAt = time.Time{}
		return false
	}
	// GoBGP applies EnablePeer asynchronously: until the peer leaves PFX_CT, or a while
	// has passed, the admin state read is the old one. A PFX_CT in that while may also
	// be new (UPDATEs still buffered over the limit, or GoBGP dropping the enable
	// request behind another): enable has the state looked at again once it is over.
	if s.held != nil || at.Sub(s.enabledAt) < enableSettle {
		return false
	}
	if !s.establishedSince.IsZero() && at.Sub(s.establishedSince) >= holdDownMax {
		s.lastBackoff = 0 // it stayed within its limits for a while
	}
	backoff := min(max(s.lastBackoff*2, holdDownFirst), holdDownMax)
	s.lastBackoff = backoff
	s.holdDowns++
	s.held = &heldDown{since: at, backoff: backoff, retry: time.AfterFunc(backoff, func() { r.enable(addr, "hold-down over") })}
	r.logger.Warn("peer sent more routes than its maxPrefixes: session held down", "peer", addr.String(), "retryIn", backoff.String())
	return true
}

// enable lets a held-down peer reconnect.
func (r *router) enable(addr netip.Addr, why string) {
	r.mu.Lock()
	s, ok := r.sessions[addr]
	if ok && s.held != nil {
		s.held.retry.Stop()
		s.held = nil
		s.enabledAt = time.Now()
	}
	r.mu.Unlock()
	if !ok {
		return
	}
	// Without this, a peer held down again within enableSettle that sends no further
	// state change would stay down for good, unreported.
	time.AfterFunc(enableSettle, r.notify)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.srv.EnablePeer(ctx, &api.EnablePeerRequest{Address: addr.String()}); err != nil {
		r.logger.Warn("re-enabling a held-down peer", "peer", addr.String(), "reason", why, "error", err)
	}
	r.notify()
}

// limitsRaised re-enables a held-down peer whose limits changed: the new limits may
// let it in.
func (r *router) limitsRaised(p bgp.Peer) {
	r.mu.Lock()
	s, ok := r.sessions[p.Address]
	changed := ok && s.held != nil && !maps.Equal(s.limits, p.MaxPrefixes)
	if ok {
		s.limits = maps.Clone(p.MaxPrefixes)
	}
	r.mu.Unlock()
	if changed {
		r.enable(p.Address, "maxPrefixes changed")
	}
}

// stopHoldDowns ends the retry timers of a stopping speaker.
func (r *router) stopHoldDowns() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sessions {
		if s.held != nil {
			s.held.retry.Stop()
		}
	}
}

// heldDownDetail explains a hold-down for status.
func heldDownDetail(s *session) string {
	var limits []string
	for _, f := range slices.Sorted(maps.Keys(s.limits)) {
		limits = append(limits, fmt.Sprintf("%s %d", f, s.limits[f]))
	}
	return fmt.Sprintf("the peer sent more routes than maxPrefixes (%s) allows; session held down since %s, retried at %s",
		strings.Join(limits, ", "), s.held.since.UTC().Format(time.RFC3339), s.held.since.Add(s.held.backoff).UTC().Format(time.RFC3339))
}
