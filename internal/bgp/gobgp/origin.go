package gobgp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// What a peer is sent follows from two things GoBGP keeps apart: the paths the speaker
// originates (once, without attributes) and the peer's export policy (which of them it
// gets, with which attributes). This file keeps them in step: a prefix is originated
// while some peer exports it (refs), and every change is ordered so that no peer ever
// misses a withdrawal or keeps old attributes.

// peerEdit is the planned change of one peer's export.
type peerEdit struct {
	addr netip.Addr
	pe   *peerStatements
	edit exportEdit
}

// ApplyExports applies the changes in an order fixed here:
//
//  1. Prefixes no peer exports afterwards are withdrawn first, in one DeletePath,
//     while every export policy that sent them still does, so each peer that had them
//     gets the withdrawal.
//  2. The export policies are edited. A prefix that leaves one peer's export but is
//     still originated for others is withdrawn from that peer with a soft reset out of
//     it alone (GoBGP does not re-run a policy on a policy edit).
//  3. The prefixes that are new to some peer's export or carry new attributes to it
//     are added in one AddPath: new ones are originated, originated ones re-added
//     (see addPaths), so each goes through every peer's final policy once, however many
//     peers' exports of it changed.
func (r *router) ApplyExports(ctx context.Context, changes []bgp.ExportChange) error {
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	edits := make([]peerEdit, 0, len(changes))
	seen := map[netip.Addr]bool{}
	for _, ch := range changes {
		pe, ok := r.statements[ch.Peer]
		if !ok {
			return fmt.Errorf("peer %s not found", ch.Peer)
		}
		if seen[ch.Peer] {
			return fmt.Errorf("peer %s: more than one export change in a batch", ch.Peer)
		}
		seen[ch.Peer] = true
		edits = append(edits, peerEdit{addr: ch.Peer, pe: pe, edit: pe.plan(ch.Set, ch.Remove)})
	}
	delta := map[netip.Prefix]int{}
	for _, e := range edits {
		e.edit.countRefs(delta)
	}
	if err := r.deletePaths(ctx, r.unexported(delta)); err != nil {
		return err
	}
	var errs []error
	for _, e := range edits {
		if err := r.editPeer(ctx, e); err != nil {
			errs = append(errs, fmt.Errorf("peer %s: %w", e.addr, err))
		}
	}
	err := r.addPaths(ctx, slices.SortedFunc(maps.Keys(r.resend), bgp.ComparePrefix))
	if len(r.resend) == 0 {
		// A Go map keeps the room it grew to: after a bulk change it would hold
		// 100 bytes per route for nothing.
		r.resend = map[netip.Prefix]struct{}{}
	}
	return errors.Join(append(errs, err)...)
}

// editPeer edits one peer's policy (step 2 of ApplyExports) and marks what it must be
// sent again for step 3.
func (r *router) editPeer(ctx context.Context, e peerEdit) error {
	if err := r.editExport(ctx, e.addr, e.pe, e.edit); err != nil {
		return err
	}
	withdrawn := false
	for _, m := range e.edit.moves {
		if m.to != 0 {
			r.resend[m.prefix] = struct{}{}
		} else if r.prefix(m.prefix).originated {
			withdrawn = true
		}
	}
	if withdrawn {
		return r.reexport(ctx, e.addr)
	}
	return nil
}

// dropExport deletes the peer's export policy and withdraws the prefixes no other peer
// exports. The peer is gone or never came up, so nothing is sent to it any more.
func (r *router) dropExport(ctx context.Context, addr netip.Addr, pe *peerStatements) error {
	err := r.deleteExportPolicy(ctx, addr, pe)
	e := pe.plan(nil, pe.prefixes())
	delta := map[netip.Prefix]int{}
	e.countRefs(delta)
	del := r.unexported(delta)
	r.commit(pe, e)
	return errors.Join(err, r.deletePaths(ctx, del))
}

// commit records an applied edit of a peer's export policy and counts the peers that
// export each prefix: the one place where the reference counts change.
func (r *router) commit(pe *peerStatements, e exportEdit) {
	pe.commit(e)
	delta := map[netip.Prefix]int{}
	e.countRefs(delta)
	for p, d := range delta {
		st := r.prefix(p)
		st.refs = max(0, st.refs+int32(d))
		r.setPrefix(p, st)
	}
}

// prefixState is what the speaker keeps per prefix. refs counts the peers whose
// export has it: the speaker originates exactly the prefixes some peer exports, and
// only commit changes refs. originated says the prefix's path is in GoBGP's RIB,
// flipped whether the path's ORIGIN is flipped (see addPaths); after an error they may
// lag behind refs, and the next change of the same prefix catches up.
type prefixState struct {
	refs                int32
	originated, flipped bool
}

// prefix is what the speaker keeps for p.
func (r *router) prefix(p netip.Prefix) prefixState {
	st, _ := r.prefixes.Get(p)
	return st
}

// setPrefix stores st, dropping the entry of a prefix no peer exports or has.
func (r *router) setPrefix(p netip.Prefix, st prefixState) {
	if st == (prefixState{}) {
		r.prefixes.Delete(p)
		return
	}
	r.prefixes.Set(p, st)
}

// countRefs adds to delta what the edit does to the number of peers exporting each
// prefix.
func (e exportEdit) countRefs(delta map[netip.Prefix]int) {
	for _, m := range e.moves {
		switch {
		case m.from == 0 && m.to != 0:
			delta[m.prefix]++
		case m.from != 0 && m.to == 0:
			delta[m.prefix]--
		}
	}
}

// unexported returns the originated prefixes of delta that no peer exports once delta
// is counted.
func (r *router) unexported(delta map[netip.Prefix]int) []netip.Prefix {
	var out []netip.Prefix
	for p, d := range delta {
		if st := r.prefix(p); st.originated && int(st.refs)+d <= 0 {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, bgp.ComparePrefix)
	return out
}

// unoriginated returns the prefixes of export that some peer exports but that are not
// originated yet.
func (r *router) unoriginated(export []bgp.Path) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range export {
		if st := r.prefix(p.Prefix); !st.originated && st.refs > 0 {
			out = append(out, p.Prefix)
		}
	}
	slices.SortFunc(out, bgp.ComparePrefix)
	return slices.Compact(out)
}
