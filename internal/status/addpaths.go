package status

import (
	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// addPathsStatus reports ADD-PATH send for each family configured for it (IPv4 first),
// Negotiated where the peer receives several paths; nil when no family asks for it.
func addPathsStatus(configured map[bgp.Family]uint8, negotiated map[bgp.Family]bool) []kbgpv1.BGPAddPathsStatus {
	var out []kbgpv1.BGPAddPathsStatus
	for _, f := range []struct {
		fam bgp.Family
		afi kbgpv1.AFI
	}{{bgp.FamilyIPv4Unicast, kbgpv1.AFIIPv4}, {bgp.FamilyIPv6Unicast, kbgpv1.AFIIPv6}} {
		if configured[f.fam] == 0 {
			continue
		}
		st := kbgpv1.BGPAddPathsStatus{AFI: f.afi, SAFI: kbgpv1.SAFIUnicast, Send: kbgpv1.AddPathsNotNegotiated}
		if negotiated[f.fam] {
			st.Send = kbgpv1.AddPathsNegotiated
		}
		out = append(out, st)
	}
	return out
}
