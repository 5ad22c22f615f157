package gobgp

import (
	"net/netip"
	"slices"
	"testing"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
)

// LocalRIB lists the prefixes of a speaker's RIB, both families, sorted. It is
// exported for the tests of package gobgp_test, which use gobgptest (itself importing
// gobgp, so those tests cannot be in package gobgp).
func LocalRIB(t *testing.T, r bgp.Router) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, fam := range []gobgppacket.Family{gobgppacket.RF_IPv4_UC, gobgppacket.RF_IPv6_UC} {
		err := r.(*router).srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: fam},
			func(n gobgppacket.NLRI, _ []*apiutil.Path) { out = append(out, netip.MustParsePrefix(n.String())) })
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(out, bgp.ComparePrefix)
	return out
}
