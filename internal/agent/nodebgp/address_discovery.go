package nodebgp

import (
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/sanitize"
)

// addressDiscovery finds on the node the addresses of the peers that name none: for each key
// their node config gives (an interface, an address family), the kernel's entries (E:
// neighbours, default routes) and the one address they point at. The keys where
// there is none are reported, once each time they go missing, and looked at again
// every deviceRecheckInterval. Only the reconciler goroutine calls check; resolve
// reads nothing check writes, so the kernel watch may call it too.
type addressDiscovery[K ~string, E any] struct {
	recorder record.EventRecorder
	logger   *slog.Logger
	// reason is the Warning event's reason; noun names a key in its message and log
	// line ("interface", "default gateway of").
	reason, noun string
	// peers names the peers of a node config by the key they need, as "peer NAME of
	// instance ASN", in spec order.
	peers func(*kbgpv1.BGPNodeConfig) map[K][]string
	// list returns a key's entries (the kernel's; a test's own); pick the address they
	// point at.
	list func(K) ([]E, error)
	pick func([]E) (netip.Addr, error)
	// missing is the result of the last check.
	missing map[K]struct{}
}

// check returns the address found for every key nc's peers need, and records a
// Warning event and a log line for each key that had one (or was not checked) at the
// last check and has none now.
func (d *addressDiscovery[K, E]) check(nc *kbgpv1.BGPNodeConfig) map[K]netip.Addr {
	peers := d.peers(nc)
	found, errs := d.resolve(peers)
	missing := map[K]struct{}{}
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		missing[k] = struct{}{}
		if _, known := d.missing[k]; known {
			continue
		}
		msg := fmt.Sprintf("%s %q: %v; not started: %s", d.noun, sanitize.Line(string(k)), errs[k], sanitize.Line(strings.Join(peers[k], ", ")))
		d.logger.Warn("peer address not found on the node", "where", d.noun+" "+string(k), "error", errs[k], "peers", peers[k])
		if d.recorder != nil {
			d.recorder.Event(nc, corev1.EventTypeWarning, d.reason, msg)
		}
	}
	d.missing = missing
	return found
}

// resolve finds the address of each key of peers, or why there is none.
func (d *addressDiscovery[K, E]) resolve(peers map[K][]string) (map[K]netip.Addr, map[K]error) {
	found, errs := map[K]netip.Addr{}, map[K]error{}
	for k := range peers {
		entries, err := d.list(k)
		var addr netip.Addr
		if err == nil {
			addr, err = d.pick(entries)
		}
		if err != nil {
			errs[k] = err
			continue
		}
		found[k] = addr
	}
	return found, errs
}

// retryAfter is when the keys without an address are looked at again; 0 when every
// one has its address.
func (d *addressDiscovery[K, E]) retryAfter() time.Duration {
	if len(d.missing) == 0 {
		return 0
	}
	return deviceRecheckInterval
}
