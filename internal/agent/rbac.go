package agent

// The agent's permissions, generated into config/rbac/agent by `make manifests`.
// BGPNodeConfigs are listed and watched only with a field selector on the agent's own
// name (RBAC cannot express that restriction). Every Node is listed and watched: its
// own for cordon and address changes, every other one for the addresses and pod CIDRs
// no Service may take (the cache keeps nothing else of them); so are ServiceCIDRs, whose
// free addresses no Service may take either (docs/security.md). The admission policy
// in config/admission limits its writes to its own BGPNodeConfig, its own Lease and
// Events about its own node. Services and EndpointSlices are read cluster-wide: any of
// them may be advertised; LoadBalancerIPPools say which load-balancer IPs may be. Secrets are readable in its own
// namespace only, through a Role, and so is its liveness Lease (get, create, update).
// Events go to default only, where Events about cluster-scoped objects such as its
// BGPNodeConfig live.
//
// With --metrics-secure the metrics endpoint asks the API server who a caller is and
// whether it may get /metrics, or /bgp/routes beside it (TokenReview,
// SubjectAccessReview): those grants are not
// here but in the config/metrics-secure component, which also sets the flag, so an
// install without it cannot create reviews.
//
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=servicecidrs,verbs=list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpnodeconfigs;bgppeerconfigs;bgpadvertisements;loadbalancerippools,verbs=get;list;watch
// +kubebuilder:rbac:groups=kbgp.io,resources=bgpnodeconfigs/status,verbs=get;patch
// +kubebuilder:rbac:groups="";events.k8s.io,namespace=default,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",namespace=kbgp-system,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kbgp-system,resources=leases,verbs=get;create;update
