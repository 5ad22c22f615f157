// Package contract holds what kbgp's processes and tools agree on when they talk
// through the API server, so that each side can import it without importing the other.
package contract

// AgentLeaseName is the Lease an agent renews in its namespace while it runs. The
// status is written only when something changes, so its lastUpdateTime can be old on a
// healthy node; the Lease's renewTime says when the agent was last alive. The
// operator, the kubectl plugin and the admission policy (config/admission) know the
// name too.
func AgentLeaseName(node string) string { return "kbgp-agent-" + node }
