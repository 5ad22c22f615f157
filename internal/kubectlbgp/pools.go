package kubectlbgp

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func newPoolsCommand(k *kubeOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "pools",
		Short: "List the LoadBalancerIPPools: addresses used of total per family, exhausted, overlapping, disabled",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := k.reader()
			if err != nil {
				return err
			}
			pools, err := listPools(cmd.Context(), r)
			if err != nil {
				return err
			}
			if len(pools) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No LoadBalancerIPPools found: no load-balancer address is handed out.")
				return nil
			}
			return writeLines(cmd.OutOrStdout(), formatTable(poolsHeader, poolRows(pools)))
		},
	}
}

func listPools(ctx context.Context, r client.Reader) ([]kbgpv1.LoadBalancerIPPool, error) {
	var list kbgpv1.LoadBalancerIPPoolList
	if err := r.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list LoadBalancerIPPools: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b kbgpv1.LoadBalancerIPPool) int { return strings.Compare(a.Name, b.Name) })
	return list.Items, nil
}

var poolsHeader = []string{"POOL", "IPV4", "IPV6", "EXHAUSTED", "OVERLAPPING", "DISABLED", "BLOCKS"}

// poolRows shows each pool's use as used/total per family, as the operator reports
// it; "-" where the pool has no address of a family or no status yet.
func poolRows(pools []kbgpv1.LoadBalancerIPPool) [][]string {
	rows := make([][]string, 0, len(pools))
	for _, p := range pools {
		v4, v6 := "-", "-"
		if a := p.Status.Addresses; a != nil {
			v4, v6 = usedOf(a.IPv4), usedOf(a.IPv6)
		}
		rows = append(rows, []string{
			cell(p.Name), v4, v6,
			conditionCell(p.Status.Conditions, kbgpv1.PoolExhausted), conditionCell(p.Status.Conditions, kbgpv1.PoolOverlapping),
			strconv.FormatBool(p.Spec.Disabled), blocksCell(p.Spec.Blocks),
		})
	}
	return rows
}

func usedOf(c *kbgpv1.AddressCount) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", c.Used, c.Total)
}

// conditionCell is a condition's status; "-" before the operator set it.
func conditionCell(conds []metav1.Condition, typ string) string {
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		return "-"
	}
	return string(c.Status)
}

func blocksCell(blocks []kbgpv1.IPBlock) string {
	s := make([]string, len(blocks))
	for i, b := range blocks {
		if b.CIDR != "" {
			s[i] = string(b.CIDR)
		} else {
			s[i] = string(b.Start) + "-" + string(b.Stop)
		}
	}
	return cell(strings.Join(s, ","))
}
