package convert

import (
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// MetalLB spreads one BGP setup over several kinds that refer to each other by name
// and label (a BGPAdvertisement names its pools and peers, a BGPPeer its BFDProfile,
// communities may be Community aliases), and its peers are per node selector where
// kbgp's cluster configs are. So MetalLB objects are converted in two steps: each is
// read into the metallb state below as the sources come (metallb_peer.go,
// metallb_advert.go, metallb_pool.go), and assembleMetalLB then builds the kbgp
// objects from all of them at once.

// metallb is what the MetalLB objects of the input were read into.
type metallb struct {
	peers []*mlbPeer
	advs  []*mlbAdv
	pools []*mlbPool
	// communities are the aliases of the Community objects, by alias name.
	communities      map[string]*communityAlias
	communitySources []*source
	// bfd are the BFDProfiles by name, converted when a peer first uses one.
	bfd map[string]*bfdProfile
}

// communityAlias is one alias of a MetalLB Community object.
type communityAlias struct {
	standard, large string
	from            *source
}

// bfdProfile is a MetalLB BFDProfile and its conversion, done once.
type bfdProfile struct {
	src  *source
	bfd  *kbgpv1.BGPBFD
	used bool
}

// indexMetalLB reads the objects that others refer to by name before any reference is
// resolved: Community aliases are read whole here, BFDProfiles when first used.
func (c *converter) indexMetalLB(s *source) {
	m := &c.metallb
	switch s.kind {
	case "BFDProfile":
		if m.bfd == nil {
			m.bfd = map[string]*bfdProfile{}
		}
		if _, dup := m.bfd[s.name]; !dup {
			m.bfd[s.name] = &bfdProfile{src: s}
		}
	case "Community":
		m.communitySources = append(m.communitySources, s)
		if m.communities == nil {
			m.communities = map[string]*communityAlias{}
		}
		for _, item := range s.top().obj("spec").list("communities") {
			if !item.isObj() {
				continue
			}
			name, _ := item.str("name")
			value, _ := item.str("value")
			alias := &communityAlias{from: s}
			if v, ok := strings.CutPrefix(value, "large:"); ok {
				alias.large, ok = largeCommunity(v)
				if !ok {
					item.warn("value %q is not a large community (large:a:b:c): alias dropped", value)
					continue
				}
			} else if v, ok := standardCommunity(value); ok && strings.Contains(value, ":") {
				alias.standard = v
			} else {
				item.warn("value %q is not a community (a:b or large:a:b:c): alias dropped", value)
				continue
			}
			m.communities[name] = alias
		}
	}
}

// bfdFor is the BFD configuration of a peer using the BFDProfile name.
func (c *converter) bfdFor(ref node, name string) *kbgpv1.BGPBFD {
	p := c.metallb.bfd[name]
	if p == nil {
		ref.warn("names BFDProfile %s, which is not in the input: BFD enabled with kbgp's defaults (300 ms receive and transmit intervals, multiplier 3)", name)
		return &kbgpv1.BGPBFD{Enabled: true}
	}
	if !p.used {
		p.used = true
		spec := p.src.top().obj("spec")
		p.bfd = &kbgpv1.BGPBFD{
			Enabled:           true,
			MinRxMilliseconds: spec.int32In("receiveInterval", 10, 60000),
			MinTxMilliseconds: spec.int32In("transmitInterval", 10, 60000),
			DetectMultiplier:  spec.int32In("detectMultiplier", 2, 255),
		}
		for _, f := range []string{"echoMode", "passiveMode"} {
			if on, ok := spec.boolean(f); ok && on {
				spec.child(f).warn("has no kbgp equivalent (kbgp runs asynchronous single-hop BFD, sending from the start): dropped")
			}
		}
		spec.drop("echoInterval", "has no kbgp equivalent (no echo mode): dropped")
		spec.drop("minimumTtl", "has no kbgp equivalent (kbgp runs single-hop BFD, RFC 5881, which checks TTL 255): dropped")
	}
	out := *p.bfd
	return &out
}

// assembleMetalLB builds the kbgp objects from the MetalLB objects read: the
// advertisements first (the peer configs select them), then per peer its peer config,
// the cluster configs per node selector and the overrides for source addresses.
func (c *converter) assembleMetalLB() {
	m := &c.metallb
	for _, a := range m.advs {
		c.assembleAdvertisement(a)
	}
	c.assemblePeers()
	for _, s := range c.sources {
		if p := m.bfd[s.name]; p != nil && p.src == s && !p.used {
			s.top().child("spec").consume() // reported whole
			s.warn("", "is used by no BGPPeer of the input: nothing generated")
		}
	}
	used := map[*source]bool{}
	for _, a := range m.advs {
		for _, s := range a.aliasesUsed {
			used[s] = true
		}
	}
	for _, s := range m.communitySources {
		if !used[s] {
			s.warn("", "has no alias any BGPAdvertisement of the input uses: nothing generated")
		}
	}
}
