package convert

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// A MetalLB BGPPeer holds what kbgp spreads over three kinds: the local ASN and node
// selection (BGPClusterConfig), the session settings (BGPPeerConfig) and, for a
// source address, a per-node BGPNodeConfigOverride. Each BGPPeer becomes a peer config
// of its own name; the peers are gathered into one cluster config per node selector,
// with one instance per local ASN.

// hostnameLabel is the node label a MetalLB selector pins one node with.
const hostnameLabel = "kubernetes.io/hostname"

// ebgpMultihopTTL is the TTL FRR uses for "neighbor X ebgp-multihop" without a number,
// which is what MetalLB's ebgpMultiHop: true configures.
const ebgpMultihopTTL = 255

var vrfName = regexp.MustCompile(`^[A-Za-z0-9_][-A-Za-z0-9_.]*$`)

// mlbPeer is a BGPPeer read.
type mlbPeer struct {
	src *source
	// name is the peer's name in the cluster config (a DNS label); the peer config
	// keeps the object's name, src.name.
	name    string
	asn     int64 // the local ASN of its instance
	peerASN int64
	// dynamicASN is set instead of peerASN: MetalLB's dynamicASN.
	dynamicASN kbgpv1.DynamicASN
	addr       netip.Addr
	// iface is the interface an unnumbered peer runs over (addr is then invalid).
	iface    string
	vrf      string
	routerID string
	idNode   node
	// selectors are the node selectors, any of which selects a node; nil: every node.
	selectors  []*kbgpv1.LabelSelector
	sourceAddr string
	sourceNode node
	dualStack  bool
	pc         *kbgpv1.BGPPeerConfig
}

// metallbPeer reads a BGPPeer (v1beta1 or v1beta2).
func (c *converter) metallbPeer(s *source) {
	meta := c.meta(s)
	top := s.top()
	spec := top.obj("spec")
	p := &mlbPeer{src: s, name: peerName(top.child("metadata").child("name"), s.name)}
	skip := func(format string, args ...any) {
		s.warn("", format, args...)
		spec.consume()
	}

	asn, ok := spec.intIn("myASN", 1, maxASN)
	if !ok {
		skip("has no myASN in 1..%d, which kbgp requires: no kbgp peer generated", int64(maxASN))
		return
	}
	p.asn = asn
	if local, ok := spec.intIn("localASN", 1, maxASN); ok {
		p.asn = local
		spec.child("localASN").warn("is converted approximately: kbgp has no local-as; the peer is put in a BGP instance of localASN %d instead of %d, a speaker of its own", local, asn)
	}
	p.peerASN, ok = spec.intIn("peerASN", 1, maxASN)
	if ok {
		spec.drop("dynamicASN", "is ignored beside peerASN (MetalLB refuses both): dropped")
	} else {
		switch d, _ := spec.str("dynamicASN"); d {
		case "internal":
			p.dynamicASN = kbgpv1.DynamicASNInternal
		case "external":
			p.dynamicASN = kbgpv1.DynamicASNExternal
		default:
			skip("has neither a peerASN in 1..%d nor a dynamicASN internal or external: no kbgp peer generated", int64(maxASN))
			return
		}
	}
	if iface, ok := spec.str("interface"); ok && iface != "" {
		if len(iface) > 15 || !vrfName.MatchString(iface) {
			skip("has interface %q, which is not a Linux interface name (at most 15 characters): no kbgp peer generated", iface)
			return
		}
		p.iface = iface
		spec.ignore("peerAddress") // MetalLB refuses both; the interface is what it peers over
	} else {
		addr, _ := spec.str("peerAddress")
		p.addr, _ = netip.ParseAddr(addr)
		if !p.addr.IsValid() || p.addr.Zone() != "" {
			skip("has no peerAddress kbgp accepts (an IP address without zone) nor an interface: no kbgp peer generated")
			return
		}
		p.addr = p.addr.Unmap()
	}

	for _, item := range spec.list("nodeSelectors") {
		if !item.isObj() {
			continue
		}
		sel := selectorOf(item, nil)
		if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			p.selectors = nil // one selector selects every node: so does the peer
			break
		}
		p.selectors = append(p.selectors, sel)
	}
	if id, ok := spec.str("routerID"); ok {
		if a, err := netip.ParseAddr(id); err == nil && a.Is4() && a.IsGlobalUnicast() {
			p.routerID, p.idNode = a.String(), spec.child("routerID")
		} else {
			spec.child("routerID").warn("%q is not an IPv4 address kbgp accepts as router ID: dropped", id)
		}
	}
	if src := spec.child("sourceAddress"); src.ok {
		// MetalLB reads "" as no source address; rendered templates write it.
		if v, ok := src.asStr(); ok && v != "" {
			if a, err := netip.ParseAddr(v); err == nil && a.Zone() == "" {
				p.sourceAddr, p.sourceNode = a.Unmap().String(), src
			} else {
				src.warn("%q is not an IP address: dropped", v)
			}
		}
	}
	if vrf, ok := spec.str("vrf"); ok && vrf != "" {
		if len(vrf) <= 15 && vrfName.MatchString(vrf) {
			p.vrf = vrf
		} else {
			spec.child("vrf").warn("%q is not a Linux interface name (at most 15 characters): dropped", vrf)
		}
	}
	spec.ignore("disableMP") // a session per family, as kbgp's own default below
	p.dualStack, _ = spec.boolean("dualStackAddressFamily")

	p.pc = &kbgpv1.BGPPeerConfig{TypeMeta: typeMeta("BGPPeerConfig"), ObjectMeta: meta}
	pc := &p.pc.Spec
	if port := spec.int32In("peerPort", 1, 65535); port != nil {
		pc.Transport = &kbgpv1.BGPTransport{PeerPort: port}
	}
	timers := kbgpv1.BGPTimers{
		HoldTimeSeconds:         durationSeconds(spec, "holdTime", 3, 65535),
		KeepAliveTimeSeconds:    durationSeconds(spec, "keepaliveTime", 1, 65535),
		ConnectRetryTimeSeconds: durationSeconds(spec, "connectTime", 1, 65535),
	}
	// MetalLB's defaults of one timer depend on the other (parseTimers): a hold time
	// alone gets a keepalive of a third of it, a keepalive alone a hold time of three
	// times it. kbgp's fixed defaults (90 s and 30 s) would differ.
	switch h, k := timers.HoldTimeSeconds, timers.KeepAliveTimeSeconds; {
	case h != nil && k == nil:
		keepalive := max(*h/3, 1)
		timers.KeepAliveTimeSeconds = &keepalive
	case h == nil && k != nil:
		hold := min(*k*3, 65535)
		timers.HoldTimeSeconds = &hold
	}
	if timers != (kbgpv1.BGPTimers{}) {
		pc.Timers = &timers
	}
	c.metallbPassword(p, spec)
	if name, ok := spec.str("bfdProfile"); ok && name != "" {
		pc.BFD = c.bfdFor(spec.child("bfdProfile"), name)
	}
	if gr, ok := spec.boolean("enableGracefulRestart"); ok && gr {
		pc.GracefulRestart = &kbgpv1.BGPGracefulRestart{Enabled: true}
	}
	if mh, ok := spec.boolean("ebgpMultiHop"); ok && mh {
		ttl := int32(ebgpMultihopTTL)
		pc.EBGPMultihop = &ttl
		spec.child("ebgpMultiHop").warn("true is converted to ebgpMultihop: %d, the TTL FRR uses for it", ebgpMultihopTTL)
	}
	c.metallb.peers = append(c.metallb.peers, p)
}

// metallbPassword converts passwordSecret into authSecretRef and reports a plain-text
// password, which kbgp does not take: kbgp reads MD5 keys from Secrets only.
func (c *converter) metallbPassword(p *mlbPeer, spec node) {
	if ref := spec.obj("passwordSecret"); ref.ok {
		name, _ := ref.str("name")
		ns, _ := ref.str("namespace")
		if name != "" && len(validation.IsDNS1123Subdomain(name)) == 0 {
			p.pc.Spec.AuthSecretRef = &name
			from := name
			if ns != "" {
				from = ns + "/" + name
			}
			ref.warn("is converted, but kbgp reads Secret %s from its agent's namespace (kbgp-system), with the password under the key password as MetalLB does: copy Secret %s there", name, from)
		} else if name != "" {
			ref.child("name").warn("%q is not a Secret name: dropped", name)
		}
	}
	pw := spec.child("password")
	if v, ok := pw.asStr(); ok && v != "" {
		if p.pc.Spec.AuthSecretRef != nil {
			pw.warn("is a plain-text password, which kbgp does not take; passwordSecret is used instead: dropped")
			return
		}
		secret := p.src.name + "-bgp-password"
		if len(secret) > 253 || len(validation.IsDNS1123Subdomain(secret)) > 0 {
			secret = p.name + "-bgp-password"
		}
		p.pc.Spec.AuthSecretRef = &secret
		pw.warn("is a plain-text password, and kbgp reads TCP MD5 passwords from Secrets only: not copied; create the Secret the peer config now names: kubectl -n kbgp-system create secret generic %s --from-literal=password='<the password>'", secret)
	}
}

// durationSeconds reads a MetalLB duration ("90s", "9m0s") as whole seconds within
// kbgp's bounds.
func durationSeconds(spec node, key string, lo, hi int64) *int32 {
	n := spec.child(key)
	s, ok := n.asStr()
	if !ok {
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		n.warn("%q is not a duration: dropped", s)
		return nil
	}
	secs := int64(d / time.Second)
	if d%time.Second != 0 {
		n.warn("%s is not a whole number of seconds, which kbgp's timers are: rounded down to %ds", s, secs)
	}
	if secs < lo || secs > hi {
		n.warn("%s is outside kbgp's range %d..%d s: dropped, kbgp's default applies", s, lo, hi)
		return nil
	}
	v := int32(secs)
	return &v
}

// mlbGroup is the peers of one node selector: one BGPClusterConfig.
type mlbGroup struct {
	selector *kbgpv1.LabelSelector
	cc       *kbgpv1.BGPClusterConfig
	first    *mlbPeer
	members  []*mlbPeer
	// selectsNone is set when the selector, narrowed by spreadAllNodePeers, selects no
	// node: no cluster config is generated for it.
	selectsNone bool
}

// selectorKey identifies a node selector (nil: every node).
func selectorKey(sel *kbgpv1.LabelSelector) string {
	key, _ := json.Marshal(sel)
	return string(key)
}

// sourceOverrides converts the BGPPeers' source addresses into per-node overrides. A
// source address is a node's own, so only a peer pinned to nodes by name has one kbgp
// can take, and only on the nodes whose cluster config holds the peer.
func (c *converter) sourceOverrides(peers []*mlbPeer, byKey map[string]*mlbGroup) {
	overrides := map[string]*kbgpv1.BGPNodeConfigOverride{}
	for _, p := range peers {
		if p.sourceAddr == "" {
			continue
		}
		var nodes []string
		pinned := len(p.selectors) > 0
		for _, sel := range p.selectors {
			hosts, ok := pinnedHosts(sel)
			pinned = pinned && ok
			if ok && slices.Contains(byKey[selectorKey(sel)].members, p) {
				for _, h := range hosts {
					if !slices.Contains(nodes, h) {
						nodes = append(nodes, h)
					}
				}
			}
		}
		switch {
		case !pinned:
			p.sourceNode.warn("is per node, and this peer is not pinned to nodes by %s: dropped; set it per node with a BGPNodeConfigOverride (peers[].localAddress)", hostnameLabel)
			continue
		case len(nodes) == 0:
			p.sourceNode.warn("is dropped: the peer is left out of every BGPClusterConfig")
			continue
		}
		p.sourceNode.warn("is converted to a BGPNodeConfigOverride for node %s, assuming the node is named after its %s label", strings.Join(nodes, ", "), hostnameLabel)
		for _, n := range nodes {
			ov := overrides[n]
			if ov == nil {
				ov = &kbgpv1.BGPNodeConfigOverride{TypeMeta: typeMeta("BGPNodeConfigOverride"), Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: n}}
				ov.Name = n
				overrides[n] = ov
				c.emit(p.src, ov)
			}
			i := slices.IndexFunc(ov.Spec.BGPInstances, func(o kbgpv1.BGPInstanceOverride) bool { return o.LocalASN == p.asn })
			if i < 0 {
				ov.Spec.BGPInstances = append(ov.Spec.BGPInstances, kbgpv1.BGPInstanceOverride{LocalASN: p.asn})
				i = len(ov.Spec.BGPInstances) - 1
			}
			ov.Spec.BGPInstances[i].Peers = append(ov.Spec.BGPInstances[i].Peers, kbgpv1.BGPPeerOverride{
				Name: p.name, PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: p.sourceAddr},
			})
		}
	}
}

// assemblePeers emits a peer config per BGPPeer, a cluster config per node selector
// and an override per node with source addresses.
func (c *converter) assemblePeers() {
	peers := c.metallb.peers
	var groups []*mlbGroup
	byKey := map[string]*mlbGroup{}
	for _, p := range peers {
		c.emit(p.src, c.peerConfig(p))
		selectors := p.selectors
		if selectors == nil {
			selectors = []*kbgpv1.LabelSelector{nil}
		}
		seen := map[string]bool{}
		for _, sel := range selectors {
			key := selectorKey(sel)
			if seen[key] {
				continue // the same selector twice selects the same nodes
			}
			seen[key] = true
			g := byKey[key]
			if g == nil {
				g = &mlbGroup{selector: sel, first: p}
				byKey[key] = g
				groups = append(groups, g)
			}
			c.addPeer(g, p)
		}
	}
	c.sourceOverrides(peers, byKey)
	c.spreadAllNodePeers(groups, byKey[selectorKey(nil)])

	taken := map[string]bool{}
	for _, g := range groups {
		if g.selectsNone || len(g.cc.Spec.BGPInstances) == 0 {
			continue // no node for it, or its peers were all left out, with warnings
		}
		name := g.first.src.name
		for i := 2; taken[name]; i++ {
			name = fmt.Sprintf("%s-%d", g.first.src.name, i)
		}
		taken[name] = true
		g.cc.Name = name
		c.emit(g.first.src, g.cc)
	}
	var overlaps []string
	for i, a := range groups {
		for _, b := range groups[i+1:] {
			if a.cc.Name != "" && b.cc.Name != "" && a.selector != nil && b.selector != nil && peerSet(a) != peerSet(b) && !disjoint(a.selector, b.selector) {
				overlaps = append(overlaps, a.cc.Name+" and "+b.cc.Name)
			}
		}
	}
	if len(overlaps) > 0 {
		groups[0].first.src.warn("", "MetalLB peers a node with every BGPPeer that selects it, kbgp runs the one BGPClusterConfig that selects it (the oldest); these BGPClusterConfigs, generated per node selector with different peers, may select the same nodes: %s; make them disjoint, or gather the peers of such nodes into one", strings.Join(overlaps, ", "))
	}
}

// spreadAllNodePeers gives the nodes of every other group the peers of the BGPPeers
// without node selector (group all), which MetalLB peers from every node, and narrows
// all's cluster config to the remaining nodes, so that each node has one cluster
// config with all its peers. all's selector can be narrowed when each other selector
// is a single requirement, whose opposite a selector can state; otherwise a warning.
func (c *converter) spreadAllNodePeers(groups []*mlbGroup, all *mlbGroup) {
	if all == nil || len(groups) == 1 {
		return
	}
	narrowed := &kbgpv1.LabelSelector{}
	for _, g := range groups {
		if g == all {
			continue
		}
		for _, p := range all.members {
			c.addPeer(g, p)
		}
		req, ok := opposite(g.selector)
		if !ok || narrowed == nil || len(narrowed.MatchExpressions) == 16 {
			narrowed = nil
			continue
		}
		narrowed.MatchExpressions = append(narrowed.MatchExpressions, req)
	}
	if narrowed == nil {
		all.first.src.warn("", "peers from every node, and the BGPClusterConfig of such peers would select the nodes of the other BGPClusterConfigs too, whose node selectors cannot be excluded in one selector: it selects every node; nodes that another one selects run only the oldest of the two (both carry these peers)")
		return
	}
	all.cc.Spec.NodeSelector = narrowed
	// The other selectors cover every node (rack In [a] and rack NotIn [a]): every
	// node has these peers in its own cluster config already.
	all.selectsNone = disjoint(narrowed, narrowed)
}

// opposite is the requirement that selects exactly the nodes sel does not, when sel is
// one requirement.
func opposite(sel *kbgpv1.LabelSelector) (kbgpv1.LabelSelectorRequirement, bool) {
	if len(sel.MatchLabels)+len(sel.MatchExpressions) != 1 {
		return kbgpv1.LabelSelectorRequirement{}, false
	}
	for k, v := range sel.MatchLabels {
		return kbgpv1.LabelSelectorRequirement{Key: k, Operator: "NotIn", Values: []kbgpv1.LabelValue{v}}, true
	}
	r := *sel.MatchExpressions[0].DeepCopy()
	r.Operator = map[kbgpv1.LabelSelectorOperator]kbgpv1.LabelSelectorOperator{
		"In": "NotIn", "NotIn": "In", "Exists": "DoesNotExist", "DoesNotExist": "Exists",
	}[r.Operator]
	return r, r.Operator != ""
}

// disjoint reports whether no node can match both selectors: one allows a label only
// values the other does not (matchLabels and In against matchLabels, In, NotIn), or
// requires a label the other requires absent. disjoint(s, s) reports whether s
// itself selects no node.
func disjoint(a, b *kbgpv1.LabelSelector) bool {
	va, vb := allowedValues(a), allowedValues(b)
	for k, values := range va {
		if other, ok := vb[k]; ok && !slices.ContainsFunc(values, func(v kbgpv1.LabelValue) bool { return slices.Contains(other, v) }) {
			return true
		}
	}
	return excludes(a, va, b) || excludes(b, vb, a)
}

// allowedValues are, per label key a selector restricts to a set of values
// (matchLabels, In), the values it allows.
func allowedValues(sel *kbgpv1.LabelSelector) map[string][]kbgpv1.LabelValue {
	out := map[string][]kbgpv1.LabelValue{}
	restrict := func(k string, values []kbgpv1.LabelValue) {
		if cur, ok := out[k]; ok {
			values = slices.DeleteFunc(slices.Clone(values), func(v kbgpv1.LabelValue) bool { return !slices.Contains(cur, v) })
		}
		out[k] = values
	}
	for k, v := range sel.MatchLabels {
		restrict(k, []kbgpv1.LabelValue{v})
	}
	for _, r := range sel.MatchExpressions {
		if r.Operator == "In" {
			restrict(r.Key, r.Values)
		}
	}
	return out
}

// excludes reports whether b rules out every node a selects through a label: a
// requires it (allowed holds the values a allows) and b requires it absent, or b's
// NotIn excludes every value a allows.
func excludes(a *kbgpv1.LabelSelector, allowed map[string][]kbgpv1.LabelValue, b *kbgpv1.LabelSelector) bool {
	required := func(k string) bool {
		_, ok := allowed[k]
		return ok || slices.ContainsFunc(a.MatchExpressions, func(r kbgpv1.LabelSelectorRequirement) bool { return r.Key == k && r.Operator == "Exists" })
	}
	for _, r := range b.MatchExpressions {
		switch r.Operator {
		case "DoesNotExist":
			if required(r.Key) {
				return true
			}
		case "NotIn":
			if values, ok := allowed[r.Key]; ok && !slices.ContainsFunc(values, func(v kbgpv1.LabelValue) bool { return !slices.Contains(r.Values, v) }) {
				return true
			}
		}
	}
	return false
}

// peerSet identifies the peers of a group's cluster config.
func peerSet(g *mlbGroup) string {
	var b strings.Builder
	for _, in := range g.cc.Spec.BGPInstances {
		fmt.Fprintf(&b, "%d:", in.LocalASN)
		for _, p := range in.Peers {
			b.WriteString(p.Name + ",")
		}
		b.WriteString(";")
	}
	return b.String()
}

// addPeer adds p to the cluster config of g, in the instance of its local ASN.
func (c *converter) addPeer(g *mlbGroup, p *mlbPeer) {
	if g.cc == nil {
		g.cc = &kbgpv1.BGPClusterConfig{TypeMeta: typeMeta("BGPClusterConfig")}
		g.cc.Spec.NodeSelector = g.selector
	}
	spec := &g.cc.Spec
	i := slices.IndexFunc(spec.BGPInstances, func(in kbgpv1.BGPInstance) bool { return in.LocalASN == p.asn })
	if i < 0 {
		if len(spec.BGPInstances) == maxInstances {
			p.src.warn("", "needs a BGP instance beyond the %d a BGPClusterConfig holds: left out of it", maxInstances)
			return
		}
		spec.BGPInstances = append(spec.BGPInstances, kbgpv1.BGPInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: p.asn}})
		i = len(spec.BGPInstances) - 1
	}
	inst := &spec.BGPInstances[i]
	for _, o := range inst.Peers {
		switch {
		case o.Name == p.name:
			p.src.warn("", "has the peer name %s of another BGPPeer with the same local ASN and nodes: left out of the cluster config", p.name)
			return
		case p.iface != "" && o.Interface == p.iface:
			p.src.warn("", "has the interface of BGPPeer %s, with the same local ASN and nodes, and kbgp peers once per interface: left out of the cluster config", o.PeerConfigRef.Name)
			return
		case p.iface == "" && o.PeerAddress != "" && netip.MustParseAddr(o.PeerAddress) == p.addr && o.VRF == p.vrf:
			p.src.warn("", "has the address and VRF of BGPPeer %s, with the same local ASN and nodes, and kbgp peers once per address: left out of the cluster config", o.PeerConfigRef.Name)
			return
		}
	}
	if len(inst.Peers) == maxPeers {
		p.src.warn("", "is beyond the %d peers a BGP instance holds: left out of the cluster config", maxPeers)
		return
	}
	if p.routerID != "" {
		switch inst.RouterID {
		case "":
			inst.RouterID = p.routerID
		case p.routerID:
		default:
			p.idNode.warn("differs from the router ID %s of another BGPPeer of the instance, and kbgp has one router ID per instance: dropped", inst.RouterID)
		}
	}
	peer := kbgpv1.BGPPeer{Name: p.name, Interface: p.iface, PeerASN: p.peerASN, DynamicASN: p.dynamicASN, VRF: p.vrf,
		PeerConfigRef: &kbgpv1.PeerConfigReference{Name: p.src.name}}
	if p.iface == "" {
		peer.PeerAddress = p.addr.String()
	}
	inst.Peers = append(inst.Peers, peer)
	g.members = append(g.members, p)
}

// peerConfig completes p's peer config with its families: the session's own family,
// and the other one too with dualStackAddressFamily, as MetalLB negotiates them; each
// sends the advertisements that name p, or every peer.
func (c *converter) peerConfig(p *mlbPeer) *kbgpv1.BGPPeerConfig {
	var adverts []kbgpv1.LabelValue
	for _, a := range c.metallb.advs {
		if a.appliesTo(p.src.name) && !slices.Contains(adverts, kbgpv1.LabelValue(a.label)) {
			adverts = append(adverts, kbgpv1.LabelValue(a.label))
		}
	}
	afis := []kbgpv1.AFI{kbgpv1.AFIIPv4, kbgpv1.AFIIPv6}
	switch {
	case p.dualStack, p.iface != "": // over an interface, IPv4 rides the IPv6 session
	case p.addr.Is4():
		afis = afis[:1]
	default:
		afis = afis[1:]
	}
	for _, afi := range afis {
		f := kbgpv1.BGPFamily{AFI: afi, SAFI: kbgpv1.SAFIUnicast}
		if len(adverts) > 0 {
			f.Advertisements = &kbgpv1.LabelSelector{MatchExpressions: []kbgpv1.LabelSelectorRequirement{
				{Key: MetalLBAdvertisementLabel, Operator: "In", Values: adverts},
			}}
		}
		p.pc.Spec.Families = append(p.pc.Spec.Families, f)
	}
	return p.pc
}

// pinnedHosts are the nodes sel pins by name, when it is exactly matchLabels
// {kubernetes.io/hostname: NODE} or kubernetes.io/hostname In [NODE...], the shapes
// MetalLB's documentation and the kubespray and k3s-ansible templates write.
func pinnedHosts(sel *kbgpv1.LabelSelector) ([]string, bool) {
	var hosts []kbgpv1.LabelValue
	switch {
	case len(sel.MatchLabels) == 1 && len(sel.MatchExpressions) == 0:
		host, ok := sel.MatchLabels[hostnameLabel]
		if !ok {
			return nil, false
		}
		hosts = []kbgpv1.LabelValue{host}
	case len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 1:
		r := sel.MatchExpressions[0]
		if r.Key != hostnameLabel || r.Operator != "In" || len(r.Values) == 0 {
			return nil, false
		}
		hosts = r.Values
	default:
		return nil, false
	}
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = string(h)
	}
	return out, true
}
