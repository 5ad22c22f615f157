package lab

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// report is what the lab prints once it is up (or gave up waiting).
type report struct {
	nodeConfigs []kbgpv1.BGPNodeConfig
	routes      []bgp.ReceivedRoute
	// problems are the differences from the expected routes and sessions.
	problems   []string
	kubeconfig string
	upstream   string
}

// write prints the node table, the upstream router's routes and how to look further.
func (r report) write(out io.Writer) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NODE\tINSTANCE\tROUTER-ID\tSOURCE\tPEER\tSTATE\tADVERTISED")
	for _, nc := range slices.SortedFunc(slices.Values(r.nodeConfigs), func(a, b kbgpv1.BGPNodeConfig) int {
		return strings.Compare(a.Name, b.Name)
	}) {
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%d\n", nc.Name, inst.LocalASN, orDash(inst.RouterID),
					orDash(string(inst.RouterIDSource)), p.Name, orDash(string(p.PeeringState)), p.RoutesAdvertised)
			}
		}
	}
	_ = w.Flush()

	fmt.Fprintf(out, "\nRoutes received by the upstream router (%s):\n", r.upstream)
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "FROM\tPREFIX\tNEXT-HOP\tAS-PATH\tCOMMUNITIES")
	for _, rt := range r.routes {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", rt.Neighbor, rt.Prefix, rt.NextHop, asPath(rt.ASPath),
			orDash(strings.Join(communities(rt.Attributes), " ")))
	}
	_ = w.Flush()

	if len(r.problems) == 0 {
		fmt.Fprintln(out, "\nEvery session is Established and every expected route arrived.")
	} else {
		fmt.Fprintln(out, "\nNot as expected:")
		for _, p := range r.problems {
			fmt.Fprintln(out, "  "+p)
		}
	}
	fmt.Fprintf(out, "\nKubeconfig: %s\nTry:\n", r.kubeconfig)
	for _, c := range []string{
		"kubectl get bgpnodeconfigs",
		"kubectl get bgpnodeconfig lab-node-2 -o yaml",
		"kubectl bgp peers -o wide",
		"kubectl bgp routes lab-node-3 -o wide",
		"kubectl bgp explain lab-node-3",
	} {
		fmt.Fprintf(out, "  KUBECONFIG=%s %s\n", r.kubeconfig, c)
	}
}

func asPath(p []uint32) string {
	s := make([]string, len(p))
	for i, as := range p {
		s[i] = fmt.Sprint(as)
	}
	return orDash(strings.Join(s, " "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
