package intent

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// Input is everything Build reads.
type Input struct {
	NodeConfig *kbgpv1.BGPNodeConfig
	Node       *corev1.Node
	// PeerConfigs, Secrets: the referenced objects that exist, by name. Secrets are
	// those of the agent's namespace.
	PeerConfigs    map[string]*kbgpv1.BGPPeerConfig
	Secrets        map[string]*corev1.Secret
	Advertisements []kbgpv1.BGPAdvertisement
	// LoadBalancerIPPools allow the load-balancer IPs in their blocks to be announced.
	LoadBalancerIPPools []kbgpv1.LoadBalancerIPPool
	// Services are every Service of the cluster; EndpointSlices are their slices, by
	// Service (namespace/name), for externalTrafficPolicy Local.
	Services       []corev1.Service
	EndpointSlices map[types.NamespacedName][]discoveryv1.EndpointSlice
	// MissingVRFs are the VRF devices the node config names that do not exist on the
	// node (the agent looks them up); their peers are not started.
	MissingVRFs map[string]struct{}
	// InterfaceNeighbors are, by interface name, the link-local router the agent found
	// on each interface a peer runs over (unzoned); a peer whose interface is absent
	// here is not started.
	InterfaceNeighbors map[string]netip.Addr
	// InterfaceAddresses are the addresses of the interfaces NodeAddress entries name
	// (AddressInterfaces), by interface; an interface absent here is not on the node.
	InterfaceAddresses map[string][]netip.Addr
	// DefaultGateways are, by family, the gateway of the node's default route (zoned
	// when link-local) for the peers that discover it; a peer whose family is absent
	// here is not started.
	DefaultGateways map[kbgpv1.AFI]netip.Addr
	// RouterIDs are the decided router IDs by local ASN (see routerid.Decide); an
	// instance without one keeps running as it was, or is not started.
	RouterIDs map[int64]netip.Addr
	// Reserved are the cluster's own addresses (every Node's addresses and pod CIDRs,
	// the Service CIDRs), never announced as a Service's external or load-balancer IP;
	// nil: none known. The ExportIndex keeps reading it: after changing it with
	// Reserved.Set, re-set the Services exports.Index.ClaimantsIn names.
	Reserved *Reserved
	// Previous is what the node runs now (the agent passes the speakers' last-applied
	// state, Service events included); peers and instances that cannot be built now keep
	// running as they are.
	Previous bgp.Desired
	// Pacer, when set, paces the changes of the Services' local endpoint counts that
	// weighted ECMP announces (exports.Index.Pace), at the times Now gives; it outlives
	// the Build, so a full build continues where the Service events left off.
	Pacer *exports.Pacer
	Now   func() time.Time

	// poolRanges are LoadBalancerIPPools' blocks, parsed once per Build.
	poolRanges []PoolRange
	// nodeOwned are the node's addresses and pod CIDRs, never announced as a
	// Service's external or load-balancer IP.
	nodeOwned []netip.Prefix
}

// Result is what the node must run and what went wrong.
type Result struct {
	Desired bgp.Desired
	// Failed lists the resources that could not be applied, and why. The Services whose
	// addresses were refused are not in it: they change with Service events, so they
	// are read from Exports.Refused.
	Failed []kbgpv1.FailedResource
	// Exports holds the built peers' exports per source, for the Service events that
	// follow (nil when there is no node config); the caller owns it.
	Exports *exports.Index
	// ShutdownWait is, while the node is drained, the longest waitSeconds of the peers
	// sent graceful-shutdown paths: how long those must be out before the agent stops
	// (0: no peer is in graceful shutdown).
	ShutdownWait time.Duration
	// Aggregation are the aggregation lengths the advertisements use: after
	// Reserved.Set, ClaimantsIn(Aggregation.Widen(changed)) are the Services to set
	// again.
	Aggregation AggregationLengths
}

// Build computes the desired state of one node.
func Build(in Input) Result {
	res := Result{Desired: bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{}}}
	if in.NodeConfig == nil {
		return res
	}
	res.Exports = exports.New(in.NodeConfig.Name)
	res.Aggregation = aggregationLengths(in.Advertisements)
	if in.Pacer != nil {
		res.Exports.Pace(in.Pacer, in.Now)
	}
	in.poolRanges = PoolRanges(in.LoadBalancerIPPools)
	in.nodeOwned = nodeOwned(in.Node)
	for _, inst := range in.NodeConfig.Spec.BGPInstances {
		rid, ok := in.RouterIDs[inst.LocalASN]
		if !ok {
			keepPreviousInstances(&res.Desired, in.Previous, uint32(inst.LocalASN))
			continue
		}
		b := instanceBuilder{in: in, inst: inst, routerID: rid, out: &res}
		b.build()
	}
	for i := range in.Services {
		svc := &in.Services[i]
		key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
		res.Exports.LoadService(key, svc, in.EndpointSlices[key])
	}
	res.Failed = append(res.Failed, missingAddressInterfaces(in)...)
	// The full build reports every refusal (Exports.Refused); only later events touch.
	res.Exports.TouchedRefusals()
	res.Exports.Fill(res.Desired)
	// Two peers naming one missing object are one problem.
	res.Failed = kbgpv1.NormalizeFailedResources(res.Failed, 0)
	return res
}

// keepPreviousInstances carries over every speaker (all VRFs) of one ASN unchanged.
func keepPreviousInstances(d *bgp.Desired, prev bgp.Desired, asn uint32) {
	for k, v := range prev.Instances {
		if k.LocalASN == asn {
			d.Instances[k] = v
		}
	}
}

// instanceBuilder builds the speakers of one BGPNodeInstance: one per VRF its peers use.
type instanceBuilder struct {
	in       Input
	inst     kbgpv1.BGPNodeInstance
	routerID netip.Addr
	out      *Result
}

func (b instanceBuilder) build() {
	for _, np := range b.inst.AllPeers() {
		if _, missing := b.in.MissingVRFs[np.VRF]; missing && np.VRF != "" {
			b.out.Failed = append(b.out.Failed, missingVRF(np.VRF))
			continue
		}
		if failure, ok := undiscovered(b.in, np); ok {
			b.out.Failed = append(b.out.Failed, failure)
			continue
		}
		key := bgp.InstanceKey{LocalASN: uint32(b.inst.LocalASN), VRF: np.VRF}
		di := b.speaker(key)
		peer, ads, problems := buildPeer(b.in, b.inst, np)
		if peer == nil {
			if prev, ok := previousPeer(b.in.Previous, key, np.Name); ok {
				di.Peers[np.Name] = prev
				problems = keptRunning(problems, np.Name)
			}
			b.out.Failed = append(b.out.Failed, problems...)
			continue
		}
		b.out.Failed = append(b.out.Failed, problems...)
		// The export is filled in from the exports.Index once every Service is in it.
		ibgp := peer.IBGP(uint32(b.inst.LocalASN))
		pods, rules := peerAdvertisements(b.in, ads, uint32(b.inst.LocalASN), ibgp)
		if NetworkUnavailable(b.in.Node) {
			// Traffic sent to this node's Service addresses would not reach a pod.
			rules = nil
		}
		if peer.Interface == "" {
			// Over an interface the next hop of every family is the link-local
			// address the session runs from (RFC 8950), which the speaker sets.
			crossFamilyNextHop(b.in.Node, peer.Address, pods, rules)
		}
		if wait, ok := gracefulShutdown(b.in, np); ok && Draining(b.in.Node) {
			withGracefulShutdown(pods, rules, ibgp)
			b.out.ShutdownWait = max(b.out.ShutdownWait, wait)
		}
		b.out.Exports.AddPeer(exports.PeerKey{Instance: key, Name: np.Name}, peer.Address, pods, serviceRules(rules))
		di.Peers[np.Name] = bgp.DesiredPeer{Peer: *peer}
	}
}

// speaker returns the (possibly new) desired speaker for key. Every speaker of the
// instance, whatever its VRF, has the instance's router ID.
func (b instanceBuilder) speaker(key bgp.InstanceKey) bgp.DesiredInstance {
	if di, ok := b.out.Desired.Instances[key]; ok {
		return di
	}
	g := bgp.Global{ASN: key.LocalASN, RouterID: b.routerID, BindDevice: key.VRF}
	if b.inst.LocalPort != nil && vrfListens(b.inst, key.VRF) {
		g.ListenPort = uint16(*b.inst.LocalPort)
		// A VRF speaker's listener is bound to its device instead.
		if key.VRF == "" {
			addrs, problem := listenAddresses(b.inst, b.in.Node, b.in.NodeConfig.Name)
			if problem != nil {
				b.out.Failed = append(b.out.Failed, *problem)
				g.ListenPort = 0
			}
			g.ListenAddresses = addrs
		}
	}
	di := bgp.DesiredInstance{Global: g, Peers: map[string]bgp.DesiredPeer{}, BMP: bmpCollectors(b.inst.BMPCollectors)}
	b.out.Desired.Instances[key] = di
	return di
}

func previousPeer(prev bgp.Desired, key bgp.InstanceKey, name string) (bgp.DesiredPeer, bool) {
	p, ok := prev.Instances[key].Peers[name]
	return p, ok
}

// keptRunning rewrites the problems of a peer that keeps running with its last good
// configuration, so that status says what runs: a running peer whose Secret was
// deleted keeps its last key (deleting a Secret never takes sessions down; to change
// a key, change the Secret's password), and is not "not started".
func keptRunning(problems []kbgpv1.FailedResource, peer string) []kbgpv1.FailedResource {
	out := make([]kbgpv1.FailedResource, 0, len(problems))
	for _, p := range problems {
		p.Message = strings.TrimSuffix(p.Message, notStarted) + fmt.Sprintf("; peer %s keeps running with its last good configuration", peer)
		out = append(out, p)
	}
	return out
}
