package routerid

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var resolvedAt = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestNewLock(t *testing.T) {
	in := Input{Config: Config{RouterID: "${NODE_IP}"}, NodeName: "worker-1", NodeAddresses: dualStack}
	res, err := Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Lock{RouterID: ip("10.0.0.5"), Source: templateSrc, Node: "worker-1", ResolvedAt: resolvedAt,
		Config: Config{RouterID: "${NODE_IP}"}}
	if diff := cmp.Diff(want, NewLock(in, res, resolvedAt), cmpAddr); diff != "" {
		t.Errorf("NewLock (-want +got):\n%s", diff)
	}
}

// TestRouterIDImmutability is "a second resolution returns the cached value" (docs/router-id.md, "Immutability"):
// once locked, changing the node's annotation does not move the ID, and a configuration
// change is reported and deferred to the next restart.
func TestRouterIDImmutability(t *testing.T) {
	first := Input{
		Config:          Config{RouterID: "${node.annotations['rid']}", RouterIDPool: ""},
		NodeName:        "worker-1",
		NodeAnnotations: map[string]string{"rid": "10.0.0.7"},
	}
	res, err := Resolve(first)
	if err != nil {
		t.Fatal(err)
	}
	lock := NewLock(first, res, resolvedAt)

	annotationChanged := first
	annotationChanged.NodeAnnotations = map[string]string{"rid": "10.0.0.8"}
	addressesChanged := first
	addressesChanged.NodeAddresses = addrs(internalIP("10.9.9.9"))
	poolDefaulted := first
	poolDefaulted.RouterIDPool = DefaultPool
	routerIDChanged := first
	routerIDChanged.RouterID = "${NODE_IP}"
	overrideAdded := first
	overrideAdded.Override = "10.10.10.10"
	poolChanged := first
	poolChanged.RouterIDPool = "172.16.0.0/24"
	otherNode := first
	otherNode.NodeName = "worker-2"
	corrupted := lock
	corrupted.RouterID = netip.Addr{}
	loopback := lock
	loopback.RouterID = ip("127.0.0.1")

	tests := []struct {
		name   string
		locked *Lock
		in     Input
		want   LockDecision
	}{
		{name: "nothing locked", in: first, want: LockDecision{Action: ResolveAndLock}},
		{name: "same input", locked: &lock, in: first,
			want: LockDecision{Action: ReuseLocked, RouterID: ip("10.0.0.7")}},
		{name: "annotation changed: second resolution returns cached value", locked: &lock, in: annotationChanged,
			want: LockDecision{Action: ReuseLocked, RouterID: ip("10.0.0.7")}},
		{name: "node addresses changed", locked: &lock, in: addressesChanged,
			want: LockDecision{Action: ReuseLocked, RouterID: ip("10.0.0.7")}},
		{name: "empty pool equals the default pool", locked: &lock, in: poolDefaulted,
			want: LockDecision{Action: ReuseLocked, RouterID: ip("10.0.0.7")}},
		{name: "routerID changed", locked: &lock, in: routerIDChanged, want: LockDecision{
			Action: ConfigChanged, RouterID: ip("10.0.0.7"),
			Message: `router ID configuration changed (routerID "${node.annotations['rid']}" -> "${NODE_IP}"); keeping 10.0.0.7, the change takes effect at next restart`,
		}},
		{name: "override added", locked: &lock, in: overrideAdded, want: LockDecision{
			Action: ConfigChanged, RouterID: ip("10.0.0.7"),
			Message: `router ID configuration changed (override "" -> "10.10.10.10"); keeping 10.0.0.7, the change takes effect at next restart`,
		}},
		{name: "pool changed", locked: &lock, in: poolChanged, want: LockDecision{
			Action: ConfigChanged, RouterID: ip("10.0.0.7"),
			Message: `router ID configuration changed (routerIDPool "10.255.0.0/16" -> "172.16.0.0/24"); keeping 10.0.0.7, the change takes effect at next restart`,
		}},
		{name: "lock of another node", locked: &lock, in: otherNode, want: LockDecision{
			Action: ResolveAndLock, Message: `locked router ID was resolved on node "worker-1", not "worker-2"; resolving again`,
		}},
		{name: "empty locked ID", locked: &corrupted, in: first, want: LockDecision{
			Action: ResolveAndLock, Message: "locked router ID is empty; resolving again",
		}},
		{name: "unusable locked ID", locked: &loopback, in: first, want: LockDecision{
			Action: ResolveAndLock, Message: "locked router ID 127.0.0.1 is in the loopback range 127.0.0.0/8; resolving again",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CheckLock(tc.locked, tc.in), cmpAddr); diff != "" {
				t.Errorf("CheckLock (-want +got):\n%s", diff)
			}
		})
	}
}
