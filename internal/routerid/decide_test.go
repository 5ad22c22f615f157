package routerid

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// node is a Node with an annotation and both address families (IPv6 first).
func node() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Annotations: map[string]string{"rid": "10.9.9.9"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "2001:db8::10"},
			{Type: corev1.NodeInternalIP, Address: "10.0.0.10"},
		}},
	}
}

func instance(routerID, pool string) []kbgpv1.BGPNodeInstance {
	return []kbgpv1.BGPNodeInstance{{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID, RouterIDPool: pool}}}
}

func lockOf(id string, src kbgpv1.RouterIDSource, routerID, pool string) map[int64]Lock {
	return map[int64]Lock{65001: {
		RouterID: netip.MustParseAddr(id), Source: src, Node: "worker-1", ResolvedAt: resolvedAt,
		Config: Config{RouterID: routerID, RouterIDPool: pool},
	}}
}

func TestDecide(t *testing.T) {
	ipv6Only := node()
	ipv6Only.Status.Addresses = ipv6Only.Status.Addresses[:1]
	noAddresses := node()
	noAddresses.Status.Addresses = nil
	reannotated := node()
	reannotated.Annotations["rid"] = "10.8.8.8"
	reannotated.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.99"}}

	tests := []struct {
		name       string
		in         DecideInput
		want       string
		source     kbgpv1.RouterIDSource
		resolved   bool // resolved now, not reused
		fallback   bool
		warning    string
		wantErr    string
		retryable  bool
		restarting bool
	}{
		{name: "explicit", in: DecideInput{Instances: instance("10.10.10.10", ""), Node: node()},
			want: "10.10.10.10", source: kbgpv1.RouterIDSourceExplicit, resolved: true},
		{name: "explicit needs no Node", in: DecideInput{Instances: instance("10.10.10.10", "")},
			wantErr: "Node worker-1 not found", retryable: true},
		{name: "template from annotation", in: DecideInput{Instances: instance("${node.annotations['rid']}", ""), Node: node()},
			want: "10.9.9.9", source: kbgpv1.RouterIDSourceTemplate, resolved: true},
		{name: "node InternalIP IPv4", in: DecideInput{Instances: instance("", ""), Node: node()},
			want: "10.0.0.10", source: kbgpv1.RouterIDSourceNodeIPv4, resolved: true},
		{name: "IPv6-only node: hash of the node name", in: DecideInput{Instances: instance("", ""), Node: ipv6Only},
			want: "10.255.166.39", source: kbgpv1.RouterIDSourceHash, resolved: true, fallback: true},
		{name: "IPv6-only node, custom pool", in: DecideInput{Instances: instance("", "172.16.0.0/24"), Node: ipv6Only},
			want: "172.16.0.205", source: kbgpv1.RouterIDSourceHash, resolved: true, fallback: true},
		{name: "no addresses yet: wait", in: DecideInput{Instances: instance("", ""), Node: noAddresses},
			wantErr: "reports no addresses yet", retryable: true},
		{name: "no addresses after the wait: hash", in: DecideInput{Instances: instance("", ""), Node: noAddresses, WaitOver: true},
			want: "10.255.166.39", source: kbgpv1.RouterIDSourceHash, resolved: true, fallback: true},
		{name: "template with no value: an error, never a silent default", in: DecideInput{Instances: instance("${node.annotations['missing']}", ""), Node: node()},
			wantErr: "Template resolution failed: annotation 'missing' not found", retryable: true},
		{name: "invalid pool: a configuration error", in: DecideInput{Instances: instance("", "10.0.0.0/30"), Node: node()},
			wantErr: "invalid router ID configuration"},
		{name: "locked ID survives node edits", in: DecideInput{Instances: instance("${node.annotations['rid']}", ""), Node: reannotated,
			Locks: lockOf("10.9.9.9", kbgpv1.RouterIDSourceTemplate, "${node.annotations['rid']}", "")},
			want: "10.9.9.9", source: kbgpv1.RouterIDSourceTemplate},
		{name: "locked ID survives a restart with the same configuration", in: DecideInput{Instances: instance("", ""), Node: reannotated, Restarting: true,
			Locks: lockOf("10.0.0.10", kbgpv1.RouterIDSourceNodeIPv4, "", "10.255.0.0/16")},
			want: "10.0.0.10", source: kbgpv1.RouterIDSourceNodeIPv4},
		{name: "locked ID reused even while the Node is unreadable", in: DecideInput{Instances: instance("", ""),
			Locks: lockOf("10.0.0.10", kbgpv1.RouterIDSourceNodeIPv4, "", "")},
			want: "10.0.0.10", source: kbgpv1.RouterIDSourceNodeIPv4},
		{name: "changed configuration waits for the restart", in: DecideInput{Instances: instance("10.7.7.7", ""), Node: node(),
			Locks: lockOf("10.0.0.10", kbgpv1.RouterIDSourceNodeIPv4, "", "")},
			want: "10.0.0.10", source: kbgpv1.RouterIDSourceNodeIPv4,
			warning: `router ID configuration changed (routerID "" -> "10.7.7.7"); keeping 10.0.0.10, the change takes effect at next restart`},
		{name: "changed configuration applies at restart", in: DecideInput{Instances: instance("10.7.7.7", ""), Node: node(), Restarting: true,
			Locks: lockOf("10.0.0.10", kbgpv1.RouterIDSourceNodeIPv4, "", "")},
			want: "10.7.7.7", source: kbgpv1.RouterIDSourceExplicit, resolved: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.NodeName, tc.in.Now = "worker-1", resolvedAt.Add(time.Hour)
			d := Decide(tc.in)[65001]
			if tc.wantErr != "" {
				if d.Err == nil || !strings.Contains(d.Err.Error(), tc.wantErr) || d.Retryable() != tc.retryable {
					t.Fatalf("err = %v (retryable %v), want %q (retryable %v)", d.Err, d.Retryable(), tc.wantErr, tc.retryable)
				}
				return
			}
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			if d.Lock.RouterID.String() != tc.want || d.Lock.Source != tc.source || d.Lock.Node != "worker-1" {
				t.Fatalf("lock = %+v, want %s (%s) on worker-1", d.Lock, tc.want, tc.source)
			}
			if (d.Resolved != nil) != tc.resolved {
				t.Fatalf("resolved now = %v, want %v", d.Resolved != nil, tc.resolved)
			}
			if d.Resolved != nil && (d.Resolved.Fallback != tc.fallback || !d.Lock.ResolvedAt.Equal(tc.in.Now)) {
				t.Fatalf("resolution %+v at %v, want fallback %v at now", d.Resolved, d.Lock.ResolvedAt, tc.fallback)
			}
			if d.Resolved == nil && !d.Lock.ResolvedAt.Equal(resolvedAt) {
				t.Fatalf("a reused lock changed its resolution time to %v", d.Lock.ResolvedAt)
			}
			if d.Warning != tc.warning {
				t.Fatalf("warning = %q, want %q", d.Warning, tc.warning)
			}
		})
	}
}

func TestLocksFromStatus(t *testing.T) {
	at := metav1.NewTime(resolvedAt)
	st := kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
		{LocalASN: 65001, RouterID: "10.255.166.39", RouterIDSource: kbgpv1.RouterIDSourceHash, RouterIDNode: "worker-1",
			RouterIDResolutionTime: &at, RouterIDResolvedFrom: &kbgpv1.RouterIDConfiguration{RouterIDPool: "10.255.0.0/16"}},
		// Written without the configuration it came from: cannot be checked, not reused.
		{LocalASN: 65002, RouterID: "10.0.0.1", RouterIDSource: kbgpv1.RouterIDSourceExplicit, RouterIDNode: "worker-1", RouterIDResolutionTime: &at},
		// Not an address (a hand-edited status): not reused.
		{LocalASN: 65003, RouterID: "bogus", RouterIDNode: "worker-1", RouterIDResolutionTime: &at, RouterIDResolvedFrom: &kbgpv1.RouterIDConfiguration{}},
	}}
	want := lockOf("10.255.166.39", kbgpv1.RouterIDSourceHash, "", "10.255.0.0/16")
	if diff := cmp.Diff(want, LocksFromStatus(st), cmpAddr); diff != "" {
		t.Fatalf("locks (-want +got):\n%s", diff)
	}
}

func TestRetryableErrors(t *testing.T) {
	if (Decision{Err: errors.New("other")}).Retryable() {
		t.Fatal("an unrelated error is retryable")
	}
}
