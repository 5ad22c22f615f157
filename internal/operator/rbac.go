package operator

// The operator's permissions, generated into config/rbac/operator by `make manifests`.
// Nodes are read as metadata only; it writes BGPNodeConfigs (spec, and status for the
// failedResources entries of ignored overrides, and Ready when an agent stops reporting)
// and BGPClusterConfig status. Its leader-election Lease and the agents' liveness Leases,
// which it watches, live in kbgp-system, the only namespace it may touch Leases in.
// It hands out load-balancer addresses: it reads Services and writes their status only
// (never their spec), and writes LoadBalancerIPPool status.
//
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpclusterconfigs;bgppeerconfigs;bgpnodeconfigoverrides,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpclusterconfigs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpnodeconfigs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpnodeconfigs/status,verbs=get;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kbgp-system,resources=leases,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=services/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kbgp.io,resources=loadbalancerippools,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=loadbalancerippools/status,verbs=get;update;patch
// It translates BGPPeeringPolicies into the cluster configs, peer configs and
// advertisements they generate, which it creates, puts back and deletes.
// +kubebuilder:rbac:groups=kbgp.io,resources=bgppeeringpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgppeeringpolicies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgppeeringpolicies/finalizers,verbs=update
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpclusterconfigs;bgppeerconfigs;bgpadvertisements,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
