// Package controller makes the agent the node's pod network (--pod-network): it writes
// the node's CNI configuration from its pod CIDRs, reports it in the BGPNodeConfig's
// status, and feeds the routes the importing peers send (podnet/routes) with every
// Node's pod CIDRs. It needs nothing but the Node: pods get a network before, and
// without, any BGP configuration.
package controller

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/cni"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/nodestatus"
	"kbgp.io/kbgp/internal/podnet"
	"kbgp.io/kbgp/internal/podnet/routes"
)

// Config is the pod network's configuration on the node.
type Config struct {
	// CNIConfDir receives podnet.FileName.
	CNIConfDir string
	// Bridge is the pods' bridge.
	Bridge string
	// MTU of the bridge and pods; 0: podnet.HostMTU.
	MTU int
	// IPAMDataDir is host-local's state directory; empty: its default.
	IPAMDataDir string
	// CNIStateDir is where kbgp-cni records the gateways it saw.
	CNIStateDir string
	// ClusterPodCIDRs are the cluster's pod ranges: of the Nodes' pod CIDRs that peers
	// with importPodRoutes send, only those inside them are installed. Empty: no bound
	// but the Nodes'.
	ClusterPodCIDRs []netip.Prefix
}

// fieldManager owns status.podNetwork and PodNetworkReady only, beside the agent's
// status writer ("kbgp-agent").
const fieldManager = "kbgp-agent-podnetwork"

// gatewayRecheck is how often the status looks for gateways kbgp-cni has not recorded
// yet (no pod of that family on the node so far).
const gatewayRecheck = 15 * time.Second

// Reconciler writes the node's CNI configuration from its pod CIDRs and reports it. It
// keeps no state of its own between reconciles (routes has its lock), so the default of
// one worker is not what keeps it correct.
type Reconciler struct {
	client   client.Client
	nodeName string
	config   Config
	logger   *slog.Logger
	// routes installs the other nodes' pod CIDRs that importing peers send.
	routes *routes.Installer
	// recount asks for a status report when the installed routes change.
	recount chan event.GenericEvent
}

// New returns the pod network of node nodeName, whose installer (made with
// routes.PodNetwork{Ranges: config.ClusterPodCIDRs}) puts the other nodes' pod CIDRs
// into the kernel; Recount must be called when its routes change.
func New(c client.Client, nodeName string, config Config, installer *routes.Installer, logger *slog.Logger) *Reconciler {
	return &Reconciler{client: c, nodeName: nodeName, config: config, logger: logger, routes: installer, recount: make(chan event.GenericEvent, 1)}
}

// Recount asks for a status report: the installed routes changed.
func (r *Reconciler) Recount() {
	select { // one pending report is enough
	case r.recount <- event.GenericEvent{Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: r.nodeName}}}:
	default:
	}
}

// SetupWithManager registers the controller and the watch of every Node's pod CIDRs.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, clientset kubernetes.Interface) error {
	if err := mgr.Add(&clusterPodCIDRs{clientset: clientset, nodeName: r.nodeName, routes: r.routes}); err != nil {
		return err
	}
	toNode := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: r.nodeName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("podnetwork").
		// The manager's cache may hold every Node (the agent's does); only this one's
		// pod CIDRs configure this node.
		For(&corev1.Node{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.nodeName }), podCIDRsChanged)).
		// The status goes into the node's BGPNodeConfig once there is one.
		Watches(&kbgpv1.BGPNodeConfig{}, toNode, builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(event.UpdateEvent) bool { return false },
		})).
		WatchesRawSource(source.Channel(r.recount, toNode)).
		Complete(metrics.Instrument(r))
}

// podCIDRsChanged passes the Node updates that change its CNI configuration.
var podCIDRsChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okO := e.ObjectOld.(*corev1.Node)
		n, okN := e.ObjectNew.(*corev1.Node)
		return !okO || !okN || !slices.Equal(o.Spec.PodCIDRs, n.Spec.PodCIDRs) || o.Spec.PodCIDR != n.Spec.PodCIDR
	},
}

// Reconcile writes the configuration when the pod CIDRs give one that differs from the
// file, and reports it. Invalid pod CIDRs leave the last good file in place.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	var node corev1.Node
	if err := r.client.Get(ctx, types.NamespacedName{Name: r.nodeName}, &node); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	path := filepath.Join(r.config.CNIConfDir, podnet.FileName)
	mtu := r.mtu()
	st := kbgpv1.PodNetworkStatus{Bridge: r.config.Bridge, MTU: int32(mtu), CNIConfig: path, InstalledRoutes: int32(r.routes.Count())}
	cond := metav1.Condition{Type: kbgpv1.ConditionPodNetworkReady, Status: metav1.ConditionFalse}
	cidrs, err := podnet.PodCIDRs(node.Spec.PodCIDRs, node.Spec.PodCIDR)
	switch {
	case err != nil:
		cond.Reason, cond.Message = kbgpv1.ReasonInvalidPodCIDR, err.Error()+"; the last good CNI configuration stays"
	case len(cidrs) == 0:
		cond.Reason, cond.Message = kbgpv1.ReasonNoPodCIDR, "the Node has no pod CIDR yet"
	default:
		for _, c := range cidrs {
			st.PodCIDRs = append(st.PodCIDRs, c.String())
		}
		st.Gateways = r.gateways(cidrs)
		if err := r.write(path, cidrs, mtu); err != nil {
			cond.Reason, cond.Message = kbgpv1.ReasonWriteFailed, err.Error()
		} else {
			cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, kbgpv1.ReasonConfigWritten, "CNI configuration "+path+" written for "+fmt.Sprint(st.PodCIDRs)
		}
	}
	if cond.Status != metav1.ConditionTrue {
		r.logger.Warn("pod network not ready", "reason", cond.Reason, "detail", cond.Message)
	}
	var again reconcile.Result
	if len(st.Gateways) < len(st.PodCIDRs) {
		// kbgp-cni records a family's gateway with the first pod: look again for it.
		again.RequeueAfter = gatewayRecheck
	}
	return again, r.report(ctx, st, cond)
}

func (r *Reconciler) mtu() int {
	if r.config.MTU > 0 {
		return r.config.MTU
	}
	return podnet.HostMTU()
}

// write replaces the configuration atomically (a temporary file renamed over it), so a
// runtime never reads half a file, and only when it changed.
func (r *Reconciler) write(path string, cidrs []netip.Prefix, mtu int) error {
	content, err := podnet.Conflist(podnet.Config{PodCIDRs: cidrs, Bridge: r.config.Bridge, MTU: mtu,
		IPAMDataDir: r.config.IPAMDataDir, StateDir: r.config.CNIStateDir})
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		return nil
	}
	if err := os.MkdirAll(r.config.CNIConfDir, 0o755); err != nil {
		return fmt.Errorf("CNI configuration directory: %w", err)
	}
	tmp, err := os.CreateTemp(r.config.CNIConfDir, "."+podnet.FileName+".*")
	if err != nil {
		return fmt.Errorf("write CNI configuration: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return fmt.Errorf("write CNI configuration: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write CNI configuration: %w", err)
	}
	r.logger.Info("wrote CNI configuration", "path", path, "podCIDRs", fmt.Sprint(cidrs))
	return nil
}

// report applies status.podNetwork and PodNetworkReady to the node's BGPNodeConfig, if
// there is one yet (its creation brings the agent back here).
func (r *Reconciler) report(ctx context.Context, st kbgpv1.PodNetworkStatus, cond metav1.Condition) error {
	var nc kbgpv1.BGPNodeConfig
	if err := r.client.Get(ctx, types.NamespacedName{Name: r.nodeName}, &nc); err != nil {
		return client.IgnoreNotFound(err)
	}
	// Keep the transition time of an unchanged condition.
	conds := slices.Clone(nc.Status.Conditions)
	meta.SetStatusCondition(&conds, cond)
	status := &kbgpv1.BGPNodeConfigStatus{PodNetwork: &st, Conditions: []metav1.Condition{*meta.FindStatusCondition(conds, kbgpv1.ConditionPodNetworkReady)}}
	err := nodestatus.Apply(ctx, r.client, r.nodeName, fieldManager, status)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// gateways are the pod gateways kbgp-cni recorded from the CNI results, for the node's
// current pod CIDRs (a record of an older CIDR is left out): none before the first pod.
func (r *Reconciler) gateways(cidrs []netip.Prefix) []string {
	gws, err := cni.ReadGateways(r.config.CNIStateDir)
	if err != nil {
		r.logger.Warn("pod gateways not read", "dir", r.config.CNIStateDir, "error", err)
		return nil
	}
	var out []string
	for _, g := range gws {
		if slices.Contains(cidrs, g.Subnet) {
			out = append(out, g.Gateway.String())
		}
	}
	slices.Sort(out)
	return out
}
