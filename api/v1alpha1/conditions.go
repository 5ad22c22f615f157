package v1alpha1

// The condition types and reasons kbgp writes into the status of its objects. They are
// part of the API: users match on them (kubectl wait --for=condition=Ready, alerts), so
// each is defined once, here, and the operator, the agent and the kubectl plugin use
// these names.

// ConditionReady is the summary condition of every kind that has conditions: True when
// the object does what it asks for.
const ConditionReady = "Ready"

// BGPNodeConfig conditions and reasons, written by the node's agent (the operator sets
// ReasonAgentNotReporting when the agent stops renewing its Lease).
const (
	// ConditionDegraded is True when some resource failed or some peer is not
	// configured (status.failedResources says which).
	ConditionDegraded = "Degraded"
	// ConditionRouterIDResolved is True when every instance has a router ID.
	ConditionRouterIDResolved = "RouterIDResolved"
	// ConditionPodNetworkReady is True when the node's CNI configuration is written for
	// its pod CIDRs.
	ConditionPodNetworkReady = "PodNetworkReady"

	ReasonConfigurationSuccessful = "ConfigurationSuccessful"
	ReasonConfigurationFailed     = "ConfigurationFailed"

	// ReasonAgentNotReporting: the agent has stopped renewing its Lease, so Ready is
	// Unknown rather than a stale True; the agent puts its own Ready back after its next
	// renewal.
	ReasonAgentNotReporting = "AgentNotReporting"
	// ReasonAgentShutdown: the agent stopped and no peer keeps its routes through
	// graceful restart, so the node announces nothing.
	ReasonAgentShutdown = "AgentShutdown"

	ReasonRouterIDFailed      = "RouterIDResolutionFailed"
	ReasonRouterIDPending     = "WaitingForNode"
	ReasonRouterIDConfigError = "RouterIDConfigError"
	// ReasonRouterIDResolved is used when instances differ in how their IDs resolved;
	// when they agree, the reason names the source (ReasonRouterIDExplicit and others).
	ReasonRouterIDResolved     = "RouterIDResolved"
	ReasonRouterIDExplicit     = "Explicit"
	ReasonRouterIDTemplate     = "Template"
	ReasonRouterIDAutoDetect   = "AutoDetect"
	ReasonRouterIDHashFallback = "HashFallback"

	ReasonConfigWritten  = "ConfigWritten"
	ReasonNoPodCIDR      = "NoPodCIDR"
	ReasonInvalidPodCIDR = "InvalidPodCIDR"
	ReasonWriteFailed    = "WriteFailed"
)

// BGPClusterConfig conditions and reasons, written by the operator. A True problem
// condition uses its own type as the reason, and so does a False Ready it causes.
const (
	ConditionNoMatchingNodes           = "NoMatchingNodes"
	ConditionMissingPeerConfigs        = "MissingPeerConfigs"
	ConditionConflictingClusterConfigs = "ConflictingClusterConfigs"
	// ConditionRouterIDConflict is True when two of the config's nodes run an instance
	// with the same resolved router ID.
	ConditionRouterIDConflict = "RouterIDConflict"
	// ConditionRouterIDPoolUsageHigh is True when more than half of an instance's
	// routerIDPool is taken by its nodes' hashed router IDs: collisions get likely, and
	// a larger pool is due.
	ConditionRouterIDPoolUsageHigh = "RouterIDPoolUsageHigh"
	// ConditionOverridesPeeringPolicy is set, only while true, on a user-written config
	// that takes precedence over a BGPPeeringPolicy's generated config on some node.
	ConditionOverridesPeeringPolicy = "OverridesPeeringPolicy"

	ReasonRendered         = "Rendered"
	ReasonNodesSelected    = "NodesSelected"
	ReasonPeerConfigsFound = "PeerConfigsFound"
	ReasonNoConflict       = "NoConflict"
	ReasonRouterIDsUnique  = "RouterIDsUnique"
	ReasonPoolUsageNormal  = "PoolUsageNormal"
)

// BGPPeeringPolicy conditions and reasons, written by the operator.
const (
	ConditionTranslated = "Translated"

	ReasonTranslated = "Translated"
	// ReasonNameTaken: a generated name is held by an object the policy does not own.
	ReasonNameTaken = "NameTaken"
	// ReasonRejected: the API server refused a generated object.
	ReasonRejected = "Rejected"
	// ReasonTranslationFailed: the policy cannot be translated.
	ReasonTranslationFailed = "TranslationFailed"
	// ReasonOverriddenByClusterConfig: a user-written cluster config runs instead on
	// some selected node.
	ReasonOverriddenByClusterConfig = "OverriddenByClusterConfig"
)

// LoadBalancerIPPool conditions and reasons, written by the operator's allocator.
const (
	// PoolExhausted is True when a Service waits for an address the pool could give but
	// has none left.
	PoolExhausted = "Exhausted"
	// PoolOverlapping is True when one of the pool's addresses also lies in another pool.
	PoolOverlapping = "Overlapping"

	ReasonBlocksValid   = "BlocksValid"
	ReasonInvalidBlocks = "InvalidBlocks"
	ReasonAddressesLeft = "AddressesLeft"
	ReasonNoAddressLeft = "NoAddressLeft"
	ReasonNoOverlap     = "NoOverlap"
	ReasonOverlaps      = "OverlapsOtherPools"
)
