// Package operator holds the operator's six controllers, thin fetch → compute → write
// loops around pure packages, each registered by the SetupWithManager of its own file
// together with the watches, predicates and event mappings that feed its queue;
// NewManager lists them:
//
//   - nodeconfig (nodeconfig_controller.go): renders BGPNodeConfig/<node> per node with
//     internal/render, in parallel workers;
//   - clusterconfig (clusterconfig_controller.go): the conditions of each
//     BGPClusterConfig (selection, missing peer configs, conflicts, router-ID conflicts
//     and pool usage);
//   - lbipam (lbipam_controller.go): load-balancer addresses for Services, with
//     internal/lbipam;
//   - lbpoolstatus (lbpool_status.go): the status of each LoadBalancerIPPool;
//   - peeringpolicy (peeringpolicy_controller.go): the objects a BGPPeeringPolicy
//     generates, with internal/peeringpolicy;
//   - agentliveness (agent_liveness.go): marks a node's Ready Unknown when its agent
//     stops renewing its Lease (only with an agent namespace).
//
// Each writes only when content changes, so a resync or an unrelated event costs reads
// from the informer cache and no API writes.
package operator
