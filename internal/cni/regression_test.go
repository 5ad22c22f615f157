package cni

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/google/go-cmp/cmp"
)

// gatewaysFunc is how a plugin learns each family's gateway and pod subnet. podCIDRs are
// the node's pod CIDRs, parsed once and shared (kubenet kept them in its plugin struct);
// res is the bridge plugin's result for the pod. Neither may be written to.
type gatewaysFunc func(podCIDRs []*net.IPNet, res *types100.Result) ([]Gateway, error)

// fromResult is kbgp-cni's way: everything from the CNI result, the pod CIDRs unused.
func fromResult(_ []*net.IPNet, res *types100.Result) ([]Gateway, error) {
	_, gws, _, err := Gateways(res)
	return gws, err
}

// documentOldLogic is SOURCE DOCUMENT 003's OLD KUBENET LOGIC, kept here only to prove
// that TestGatewayComesFromTheResultAndNothingIsMutated can fail: the table runs it next
// to fromResult and requires the test's checks to catch it. Never use it. As in kubenet
// before kubernetes#85993, it takes the bridge address to be the pod CIDR's first address
// and computes it by incrementing the network number in place:
//
//	cidr.IP[len(cidr.IP)-1] += 1 // Set bridge address to first address in IPNet
//	plugin.podCIDRs = append(plugin.podCIDRs, cidr)
//	plugin.podGateways = append(plugin.podGateways, cidr.IP)
//
// so the shared pod CIDR is mutated (it now reads 10.244.1.1/24), the gateway aliases
// it, every further run moves the gateway on by one, and a gateway the IPAM put
// elsewhere (10.244.1.129) is never seen.
func documentOldLogic(podCIDRs []*net.IPNet, res *types100.Result) ([]Gateway, error) {
	var (
		cidrs    []*net.IPNet
		gateways []net.IP
	)
	for _, cidr := range podCIDRs {
		cidr.IP[len(cidr.IP)-1] += 1 // Set bridge address to first address in IPNet
		cidrs = append(cidrs, cidr)
		gateways = append(gateways, cidr.IP)
	}
	bridge := ""
	if len(res.Interfaces) > 0 {
		bridge = res.Interfaces[0].Name
	}
	var out []Gateway
	for i, ip := range gateways {
		addr, _ := netip.AddrFromSlice(ip)
		ones, _ := cidrs[i].Mask.Size()
		out = append(out, Gateway{Gateway: addr.Unmap(), Subnet: netip.PrefixFrom(addr.Unmap(), ones), Bridge: bridge, BridgeMAC: testMAC})
	}
	return out, nil
}

// gatewayProblems runs fn twice over the same shared inputs and returns what is wrong:
// a gateway or subnet other than the result's, an input written to, an answer that
// changes from one run to the next.
func gatewayProblems(t *testing.T, fn gatewaysFunc, podCIDRStrings []string, res *types100.Result, want []Gateway) []string {
	t.Helper()
	var podCIDRs []*net.IPNet
	for _, s := range podCIDRStrings {
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		podCIDRs = append(podCIDRs, n)
	}
	cidrsBefore := deepCopyIPNets(podCIDRs)
	resBefore := deepCopyResult(res)

	var problems []string
	first, err := fn(podCIDRs, res)
	if err != nil {
		return []string{err.Error()}
	}
	if diff := cmp.Diff(gatewayStrings(want), gatewayStrings(first)); diff != "" {
		problems = append(problems, "gateways are not the result's (-want +got):\n"+diff)
	}
	if diff := cmp.Diff(cidrsBefore, podCIDRs); diff != "" {
		problems = append(problems, "the shared pod CIDRs were mutated (-before +after):\n"+diff)
	}
	if diff := cmp.Diff(resBefore, res); diff != "" {
		problems = append(problems, "the CNI result was mutated (-before +after):\n"+diff)
	}
	second, err := fn(podCIDRs, res)
	if err != nil {
		return append(problems, err.Error())
	}
	if diff := cmp.Diff(gatewayStrings(first), gatewayStrings(second)); diff != "" {
		problems = append(problems, "a second run gives other gateways (-first +second):\n"+diff)
	}
	return problems
}

func TestGatewayComesFromTheResultAndNothingIsMutated(t *testing.T) {
	res := bridgeResult(ipc(t, "10.244.1.130/24", "10.244.1.129"), ipc(t, "2001:db8:9::8001/64", "2001:db8:9::8000"))
	podCIDRs := []string{"10.244.1.0/24", "2001:db8:9::/64"}
	want := []Gateway{gw("10.244.1.129", "10.244.1.0/24"), gw("2001:db8:9::8000", "2001:db8:9::/64")}
	for _, tc := range []struct {
		name string
		fn   gatewaysFunc
		// documentOldLogic marks the row that runs kubenet's old logic: the
		// checks must find problems there, or they could not catch the regression.
		documentOldLogic bool
		wantProblems     []string // substrings the old logic's problems must contain
	}{
		{name: "kbgp-cni: from the CNI result", fn: fromResult},
		{
			name:             "kubenet's old logic (kept to prove the test can fail)",
			fn:               documentOldLogic,
			documentOldLogic: true,
			wantProblems:     []string{"gateways are not the result's", "shared pod CIDRs were mutated", "second run gives other gateways"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := gatewayProblems(t, tc.fn, podCIDRs, deepCopyResult(res), want)
			if !tc.documentOldLogic {
				for _, p := range problems {
					t.Error(p)
				}
				return
			}
			all := strings.Join(problems, "\n")
			for _, w := range tc.wantProblems {
				if !strings.Contains(all, w) {
					t.Errorf("the checks did not catch the old logic's %q; they found:\n%s", w, all)
				}
			}
			t.Logf("the checks catch kubenet's old logic:\n%s", all)
		})
	}
}

// TestGatewaysDoNotAliasTheResult: what Gateways returns shares no memory with the result,
// so a later write to the result (or to what it returned) cannot move a gateway.
func TestGatewaysDoNotAliasTheResult(t *testing.T) {
	res := bridgeResult(ipc(t, "10.244.1.130/24", "10.244.1.129"), ipc(t, "2001:db8:9::8001/64", "2001:db8:9::8000"))
	_, gws, _, err := Gateways(res)
	if err != nil {
		t.Fatal(err)
	}
	before := gatewayStrings(gws)
	for _, c := range res.IPs {
		c.Gateway[len(c.Gateway)-1]++
		c.Address.IP[len(c.Address.IP)-1]++
		c.Address.Mask[0] = 0
	}
	if diff := cmp.Diff(before, gatewayStrings(gws)); diff != "" {
		t.Errorf("writing to the result changed the gateways (-before +after):\n%s", diff)
	}
}

func gatewayStrings(gws []Gateway) []string {
	out := make([]string, len(gws))
	for i, g := range gws {
		out[i] = fmt.Sprintf("%s in %s on %s (%s)", g.Gateway, g.Subnet, g.Bridge, g.BridgeMAC)
	}
	return out
}

func deepCopyIPNets(ns []*net.IPNet) []*net.IPNet {
	out := make([]*net.IPNet, len(ns))
	for i, n := range ns {
		out[i] = &net.IPNet{IP: bytes.Clone(n.IP), Mask: bytes.Clone(n.Mask)}
	}
	return out
}

// deepCopyResult copies every byte of r: types100's Copy methods share the net.IP
// backing arrays, which is exactly what must not be shared here.
func deepCopyResult(r *types100.Result) *types100.Result {
	out := &types100.Result{CNIVersion: r.CNIVersion, DNS: types.DNS{
		Nameservers: slices.Clone(r.DNS.Nameservers), Domain: r.DNS.Domain,
		Search: slices.Clone(r.DNS.Search), Options: slices.Clone(r.DNS.Options),
	}}
	for _, i := range r.Interfaces {
		out.Interfaces = append(out.Interfaces, i.Copy())
	}
	for _, c := range r.IPs {
		cc := &types100.IPConfig{
			Address: net.IPNet{IP: bytes.Clone(c.Address.IP), Mask: bytes.Clone(c.Address.Mask)},
			Gateway: bytes.Clone(c.Gateway),
		}
		if c.Interface != nil {
			cc.Interface = types100.Int(*c.Interface)
		}
		out.IPs = append(out.IPs, cc)
	}
	for _, rt := range r.Routes {
		out.Routes = append(out.Routes, &types.Route{
			Dst: net.IPNet{IP: bytes.Clone(rt.Dst.IP), Mask: bytes.Clone(rt.Dst.Mask)},
			GW:  bytes.Clone(rt.GW), MTU: rt.MTU, AdvMSS: rt.AdvMSS, Priority: rt.Priority,
			Table: clonePtr(rt.Table), Scope: clonePtr(rt.Scope),
		})
	}
	return out
}

func clonePtr(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
