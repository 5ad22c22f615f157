package adjrib

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"

	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// query is a parsed request.
type query struct {
	side bgp.AdjRIB
	// within keeps the routes equal to or inside it; invalid: every route.
	within netip.Prefix
	// peer keeps one peer name; empty: every peer.
	peer  string
	limit int
	// after is where the previous page ended; nil: the first page.
	after *position
}

// position is the last route of a page: the peer, then the prefix.
type position struct {
	ref    speakers.PeerRef
	prefix netip.Prefix
}

// token is a position as the continue parameter carries it.
type token struct {
	ASN    uint32 `json:"a"`
	VRF    string `json:"v,omitempty"`
	Peer   string `json:"n"`
	Prefix string `json:"p"`
}

var sides = map[string]bgp.AdjRIB{adjribapi.Advertised: bgp.AdjRIBOut, adjribapi.Received: bgp.AdjRIBIn}

// parseQuery reads the parameters of adjribapi; an error is the caller's (400).
func parseQuery(v url.Values) (query, error) {
	var q query
	side, ok := sides[v.Get(adjribapi.ParamSide)]
	if !ok {
		return q, fmt.Errorf("%s must be %s or %s", adjribapi.ParamSide, adjribapi.Advertised, adjribapi.Received)
	}
	q.side, q.peer, q.limit = side, v.Get(adjribapi.ParamPeer), adjribapi.DefaultLimit
	if s := v.Get(adjribapi.ParamPrefix); s != "" {
		p, err := parsePrefix(s)
		if err != nil {
			return q, err
		}
		q.within = p
	}
	if s := v.Get(adjribapi.ParamLimit); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > adjribapi.MaxLimit {
			return q, fmt.Errorf("%s must be a number from 1 to %d", adjribapi.ParamLimit, adjribapi.MaxLimit)
		}
		q.limit = n
	}
	if s := v.Get(adjribapi.ParamContinue); s != "" {
		pos, err := decodeToken(s)
		if err != nil {
			return q, err
		}
		q.after = &pos
	}
	return q, nil
}

// parsePrefix reads a prefix, or an address as its host prefix.
func parsePrefix(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("%s %q is neither a prefix nor an address", adjribapi.ParamPrefix, s)
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// keeps says whether a route's prefix passes the prefix filter.
func (q query) keeps(p netip.Prefix) bool {
	return !q.within.IsValid() || (q.within.Bits() <= p.Bits() && q.within.Contains(p.Addr()))
}

var errBadToken = errors.New("continue token not understood: start again without it")

func encodeToken(pos position) string {
	b, _ := json.Marshal(token{ASN: pos.ref.Instance.LocalASN, VRF: pos.ref.Instance.VRF, Peer: pos.ref.Name, Prefix: pos.prefix.String()})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s string) (position, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return position{}, errBadToken
	}
	var t token
	if err := json.Unmarshal(b, &t); err != nil || t.Peer == "" {
		return position{}, errBadToken
	}
	p, err := netip.ParsePrefix(t.Prefix)
	if err != nil {
		return position{}, errBadToken
	}
	return position{ref: speakers.PeerRef{Instance: bgp.InstanceKey{LocalASN: t.ASN, VRF: t.VRF}, Name: t.Peer}, prefix: p}, nil
}
