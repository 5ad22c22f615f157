package status

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/routerid"
	"kbgp.io/kbgp/internal/sanitize"
	"kbgp.io/kbgp/internal/speakers"
)

// routerIDReasons are the RouterIDResolved reasons by source ("AutoDetect" for the
// node's InternalIP).
var routerIDReasons = map[kbgpv1.RouterIDSource]string{
	kbgpv1.RouterIDSourceExplicit: kbgpv1.ReasonRouterIDExplicit,
	kbgpv1.RouterIDSourceTemplate: kbgpv1.ReasonRouterIDTemplate,
	kbgpv1.RouterIDSourceNodeIPv4: kbgpv1.ReasonRouterIDAutoDetect,
	kbgpv1.RouterIDSourceHash:     kbgpv1.ReasonRouterIDHashFallback,
}

// Input is what the status is built from.
type Input struct {
	NodeConfig *kbgpv1.BGPNodeConfig
	// Failed are the resources intent.Build could not apply.
	Failed []kbgpv1.FailedResource
	// RouterIDs are the router-ID decisions by local ASN.
	RouterIDs map[int64]routerid.Decision
	// Snapshot is the speaker set's view of the running speakers.
	Snapshot map[bgp.InstanceKey]speakers.InstanceSnapshot
	// PeerErrors are the peers the router refused.
	PeerErrors map[speakers.PeerRef]error
	// ApplyError is the error of the last speakers.Set.Apply, if any.
	ApplyError error
	// ImportCounts are, by address, the importing peers' routes installed in the
	// node's kernel and rejected.
	ImportCounts map[netip.Addr]ImportCount
	// Previous is the status currently stored, whose condition transition times and
	// router-ID resolution times are kept when they do not change.
	Previous kbgpv1.BGPNodeConfigStatus
}

// ImportCount is what one importing peer sent: routes in the node's kernel via its
// next hop, and routes refused.
type ImportCount struct {
	Installed, Rejected int
}

// Build returns the status without lastUpdateTime, which the writer sets when the
// content changes.
func Build(in Input) kbgpv1.BGPNodeConfigStatus {
	nc := in.NodeConfig
	out := kbgpv1.BGPNodeConfigStatus{ObservedGeneration: nc.Generation}
	out.FailedResources = slices.Clone(in.Failed)
	// Peer errors become one entry for the node config; they are taken in a fixed order so
	// that the joined message does not change from one build to the next, and each names
	// its instance and VRF, since a peer name is unique only inside one instance.
	refs := slices.SortedFunc(maps.Keys(in.PeerErrors), func(a, b speakers.PeerRef) int {
		return cmp.Or(a.Instance.Compare(b.Instance), strings.Compare(a.Name, b.Name))
	})
	for _, ref := range refs {
		out.FailedResources = append(out.FailedResources, kbgpv1.FailedResource{
			Kind: "BGPNodeConfig", Name: nc.Name, Message: fmt.Sprintf("peer %s of instance %s: %v", ref.Name, ref.Instance, in.PeerErrors[ref]),
		})
	}
	// Within the schema's bounds, or the API server refuses the whole status; the
	// operator's entries (overrides) have their own share of the list.
	out.FailedResources = kbgpv1.NormalizeFailedResources(out.FailedResources, kbgpv1.MaxFailedResources-kbgpv1.MaxOperatorFailedResources)
	for _, inst := range nc.Spec.BGPInstances {
		out.BGPInstances = append(out.BGPInstances, instanceStatus(in, inst))
	}
	// Only the conditions this status sets: the others (PodNetworkReady) have their own
	// writer, and a stale copy applied here would take them over.
	out.Conditions = slices.DeleteFunc(slices.Clone(in.Previous.Conditions), func(c metav1.Condition) bool {
		return !slices.Contains(agentConditions, c.Type)
	})
	setConditions(&out, in)
	return out
}

func instanceStatus(in Input, inst kbgpv1.BGPNodeInstance) kbgpv1.BGPNodeInstanceStatus {
	st := kbgpv1.BGPNodeInstanceStatus{LocalASN: inst.LocalASN}
	if d, ok := in.RouterIDs[inst.LocalASN]; ok && d.Err == nil {
		l := d.Lock
		at := metav1.NewTime(l.ResolvedAt.UTC().Truncate(time.Second))
		st.RouterID = l.RouterID.String()
		st.RouterIDSource = l.Source
		st.RouterIDNode = l.Node
		st.RouterIDResolutionTime = &at
		st.RouterIDResolvedFrom = &kbgpv1.RouterIDConfiguration{RouterID: l.Config.RouterID, RouterIDPool: l.Config.RouterIDPool}
	}
	for _, p := range inst.AllPeers() {
		st.Peers = append(st.Peers, peerStatus(in, inst, p))
	}
	st.BMPCollectors = bmpStatus(in, uint32(inst.LocalASN))
	return st
}

// bmpStatus lists the BMP connections of every speaker of the instance (one per VRF),
// by VRF, address and port.
func bmpStatus(in Input, asn uint32) []kbgpv1.BMPCollectorStatus {
	var out []kbgpv1.BMPCollectorStatus
	for key, snap := range in.Snapshot {
		if key.LocalASN != asn {
			continue
		}
		for _, b := range snap.BMP {
			st := kbgpv1.BMPCollectorStatus{Address: b.Address.String(), Port: int32(b.Port), VRF: key.VRF, State: kbgpv1.BMPStateDown}
			if b.Up {
				st.State = kbgpv1.BMPStateUp
			}
			if !b.Since.IsZero() {
				t := metav1.NewTime(b.Since.UTC())
				st.LastTransitionTime = &t
			}
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b kbgpv1.BMPCollectorStatus) int {
		return cmp.Or(cmp.Compare(a.VRF, b.VRF), cmp.Compare(a.Address, b.Address), cmp.Compare(a.Port, b.Port))
	})
	return out
}

func peerStatus(in Input, inst kbgpv1.BGPNodeInstance, p kbgpv1.BGPNodePeer) kbgpv1.BGPNodePeerStatus {
	out := kbgpv1.BGPNodePeerStatus{
		Name: p.Name, PeerAddress: p.PeerAddress, Interface: p.Interface, VRF: p.VRF, PeerASN: p.PeerASN,
		DynamicASN: p.DynamicASN, PeeringState: kbgpv1.PeeringStateIdle,
	}
	if p.Mesh != nil {
		out.MeshRole = p.Mesh.Role
	}
	key := bgp.InstanceKey{LocalASN: uint32(inst.LocalASN), VRF: p.VRF}
	snap, ok := in.Snapshot[key].Peers[p.Name]
	if !ok {
		return out
	}
	if p.PeerAddress == "" {
		// The neighbour found on the node; the zone of a link-local one is shown apart
		// (the interface) or nowhere (a default gateway's device).
		out.PeerAddress = snap.Peer.Address.WithZone("").String()
	}
	out.PeeringState = kbgpv1.PeeringState(snap.Status.State)
	if out.PeerASN == 0 {
		// A dynamicASN peer's ASN is what its OPEN carried, while there is a session.
		out.PeerASN = int64(snap.Status.RemoteASN)
	}
	out.Reason, out.Message = snap.Status.HeldDown, kbgpv1.TruncateMessage(sanitize.Line(snap.Status.HeldDownDetail), maxPeerMessage)
	out.BFDState = kbgpv1.BFDState(snap.Status.BFDState)
	out.RoutesReceived = int64(snap.Status.Received())
	out.RoutesAdvertised = int64(snap.Advertised())
	if c, ok := in.ImportCounts[snap.Peer.Address]; ok {
		out.RoutesInstalled, out.RoutesRejected = ptr.To(int64(c.Installed)), ptr.To(int64(c.Rejected))
	}
	if snap.Status.State == bgp.StateEstablished {
		if !snap.Status.EstablishedSince.IsZero() {
			t := metav1.NewTime(snap.Status.EstablishedSince.UTC())
			out.EstablishedTime = &t
		}
		out.Timers = &kbgpv1.BGPNegotiatedTimers{
			AppliedHoldTimeSeconds:  int32(snap.Status.HoldTime.Seconds()),
			AppliedKeepaliveSeconds: int32(snap.Status.Keepalive.Seconds()),
		}
		out.AddPaths = addPathsStatus(snap.Peer.AddPathsSend, snap.Status.AddPathsSend)
	}
	return out
}

// agentConditions are the conditions setConditions sets.
var agentConditions = []string{kbgpv1.ConditionReady, kbgpv1.ConditionDegraded, kbgpv1.ConditionRouterIDResolved}

// setConditions sets Ready, Degraded and RouterIDResolved. A session that is not
// Established is not a configuration failure: Ready says the configuration applied,
// peeringState says whether the routers answered.
func setConditions(out *kbgpv1.BGPNodeConfigStatus, in Input) {
	gen := in.NodeConfig.Generation
	set := func(typ string, ok bool, reason, msg string) {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&out.Conditions, metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: gen})
	}
	var problems []string
	for _, f := range out.FailedResources {
		problems = append(problems, fmt.Sprintf("%s %s: %s", f.Kind, f.Name, f.Message))
	}
	for _, asn := range slices.Sorted(maps.Keys(in.RouterIDs)) {
		if err := in.RouterIDs[asn].Err; err != nil {
			problems = append(problems, fmt.Sprintf("instance %d: %v", asn, err))
		}
	}
	if in.ApplyError != nil {
		problems = append(problems, in.ApplyError.Error())
	}
	if len(problems) == 0 {
		set(kbgpv1.ConditionReady, true, kbgpv1.ReasonConfigurationSuccessful, "every resource applied and every peer is configured")
		set(kbgpv1.ConditionDegraded, false, kbgpv1.ReasonConfigurationSuccessful, "nothing failed")
	} else {
		msg := truncate(strings.Join(problems, "; "))
		set(kbgpv1.ConditionReady, false, kbgpv1.ReasonConfigurationFailed, msg)
		set(kbgpv1.ConditionDegraded, true, kbgpv1.ReasonConfigurationFailed, msg)
	}
	setRouterIDCondition(in.RouterIDs, set)
}

// setRouterIDCondition sums up the router IDs of every instance: False when one has
// none (waiting for the Node, a failed template, a configuration error), else True
// with the reason of the source and any pending configuration change in the message.
func setRouterIDCondition(ids map[int64]routerid.Decision, set func(typ string, ok bool, reason, msg string)) {
	var failed, resolved []string
	failReason, reason := "", ""
	for _, asn := range slices.Sorted(maps.Keys(ids)) {
		d := ids[asn]
		if d.Err != nil {
			failed = append(failed, fmt.Sprintf("instance %d: %v", asn, d.Err))
			failReason = firstOr(failReason, failureReason(d))
			continue
		}
		msg := d.Lock.Message()
		if d.Warning != "" {
			msg += " (" + d.Warning + ")"
		}
		resolved = append(resolved, msg)
		if r := routerIDReasons[d.Lock.Source]; reason == "" || reason == r {
			reason = r
		} else {
			reason = kbgpv1.ReasonRouterIDResolved
		}
	}
	switch {
	case len(failed) > 0:
		set(kbgpv1.ConditionRouterIDResolved, false, failReason, truncate(strings.Join(failed, "; ")))
	case len(resolved) > 0:
		set(kbgpv1.ConditionRouterIDResolved, true, reason, truncate(strings.Join(resolved, "; ")))
	}
}

func failureReason(d routerid.Decision) string {
	switch {
	case errors.Is(d.Err, routerid.ErrNodeNotReady):
		return kbgpv1.ReasonRouterIDPending
	case errors.Is(d.Err, routerid.ErrInvalidConfig):
		return kbgpv1.ReasonRouterIDConfigError
	}
	return kbgpv1.ReasonRouterIDFailed
}

func firstOr(have, next string) string {
	if have != "" {
		return have
	}
	return next
}

// maxMessage keeps condition messages within the API's 32768-byte limit with room to
// spare; status must stay small however many things fail.
const maxMessage = 1024

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	return s[:maxMessage] + "..."
}

// maxPeerMessage is the schema's bound on a peer's status message.
const maxPeerMessage = 256
