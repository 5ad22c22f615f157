package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestInstrumentCountsResults(t *testing.T) {
	results := []struct {
		res reconcile.Result
		err error
	}{
		{reconcile.Result{}, nil},
		{reconcile.Result{}, errors.New("transient")},
		{reconcile.Result{RequeueAfter: 1}, nil},
		{reconcile.Result{}, nil},
	}
	before := map[string]float64{}
	for _, r := range []string{resultSuccess, resultError, resultRequeue} {
		before[r] = testutil.ToFloat64(reconcileTotal.WithLabelValues(r))
	}
	i := 0
	r := Instrument(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		out := results[i]
		i++
		return out.res, out.err
	}))
	for range results {
		_, _ = r.Reconcile(context.Background(), reconcile.Request{})
	}
	want := map[string]float64{resultSuccess: 2, resultError: 1, resultRequeue: 1}
	for label, n := range want {
		if got := testutil.ToFloat64(reconcileTotal.WithLabelValues(label)) - before[label]; got != n {
			t.Errorf("kbgp_reconcile_total{result=%q} grew by %v, want %v", label, got, n)
		}
	}
}
