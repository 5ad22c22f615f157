package routerid

import (
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// ErrInvalidConfig marks a configuration that cannot resolve on any node: a malformed
// or unusable routerID or override, an unsupported template, a bad routerIDPool, an
// invalid node name. Report it as RouterIDConfigError and do not retry; only a
// configuration change fixes it.
var ErrInvalidConfig = errors.New("invalid router ID configuration")

// ErrTemplateResolution marks a valid template whose node data yields no usable
// router ID: a missing annotation, an unusable annotation value, no usable InternalIP
// or ExternalIP IPv4. Report it as RouterIDResolutionFailed and retry with backoff:
// cloud providers fill node addresses late and annotations may be added later. Its
// text is the prefix of docs/router-id.md's event message, verbatim, hence the capital.
var ErrTemplateResolution = errors.New("Template resolution failed")

// FallbackMessage is docs/router-id.md's RouterIDFallback event message, for a Result with
// Fallback set.
const FallbackMessage = "No IPv4 address, using hash-based router ID from pool"

// Config is an instance's router-ID configuration on one node: what Resolve resolves
// from and what a Lock compares.
type Config struct {
	// Override is the BGPNodeConfigOverride routerID, an IPv4 literal; empty when none.
	Override string
	// RouterID is the instance's routerID: an IPv4 literal, one template, or empty to
	// auto-detect.
	RouterID string
	// RouterIDPool is the instance's routerIDPool; empty means DefaultPool.
	RouterIDPool string
}

// Input is everything Resolve reads: the configuration and the facts of the node.
type Input struct {
	Config
	// NodeName is the Node's name; it feeds the hash and the messages.
	NodeName string
	// NodeAddresses is the Node's status.addresses.
	NodeAddresses []corev1.NodeAddress
	// NodeAnnotations is the Node's metadata.annotations.
	NodeAnnotations map[string]string
}

// Result is a resolved router ID and what the caller reports about it.
type Result struct {
	// RouterID always passes Validate.
	RouterID netip.Addr
	// Source says which rule produced RouterID.
	Source kbgpv1.RouterIDSource
	// Fallback is set when auto-detection found no usable InternalIP IPv4 (no
	// addresses, IPv6 only, or only unusable ones) and the hash was used; emit a
	// RouterIDFallback event with FallbackMessage.
	Fallback bool
	// Message is the RouterIDResolved event message.
	Message string
}

// Resolve returns the router ID of one instance on one node. Priority: Override, then
// the configured RouterID (a literal is used as-is, a template is read from the node),
// then the node's first usable InternalIP IPv4, then the hash of the node name into
// the pool. The whole configuration is validated first, even parts a higher priority
// hides, so that an error never depends on node data or appears only when an override
// is removed. Every path validates its candidate: literals when parsed, template and
// node addresses when read, and ParsePool admits only pools whose every hash result
// is valid. A template that resolves to nothing usable is an error wrapping
// ErrTemplateResolution, never a silent hash fallback; configuration errors wrap
// ErrInvalidConfig.
func Resolve(in Input) (Result, error) {
	pc, err := parseConfig(in.Config)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if err := validateNodeName(in.NodeName); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	res := Result{Source: kbgpv1.RouterIDSourceExplicit}
	switch {
	case pc.override.IsValid():
		res.RouterID = pc.override
	case pc.routerID.literal.IsValid():
		res.RouterID = pc.routerID.literal
	case pc.routerID.kind != noTemplate:
		res.Source = kbgpv1.RouterIDSourceTemplate
		if res.RouterID, err = resolveTemplate(pc.routerID, in); err != nil {
			return Result{}, err
		}
	default:
		res = autoDetect(in, pc.pool)
	}
	res.Message = resolvedMessage(res.RouterID, res.Source, in.NodeName)
	return res, nil
}

// parsedConfig is a Config that passed validation.
type parsedConfig struct {
	pool     Pool
	override netip.Addr // invalid when no override is set
	routerID routerIDSpec
}

// parseConfig validates the pool, the override (a literal only: an override is the
// operator's explicit choice, never a template) and the configured routerID.
func parseConfig(c Config) (parsedConfig, error) {
	var pc parsedConfig
	var err error
	if pc.pool, err = ParsePool(c.RouterIDPool); err != nil {
		return parsedConfig{}, err
	}
	if c.Override != "" {
		override, err := parseRouterID(c.Override)
		if err != nil {
			return parsedConfig{}, fmt.Errorf("override: %w", err)
		}
		if override.kind != noTemplate {
			return parsedConfig{}, fmt.Errorf("override routerID %q must be an IPv4 address, not a template", c.Override)
		}
		pc.override = override.literal
	}
	if c.RouterID != "" {
		if pc.routerID, err = parseRouterID(c.RouterID); err != nil {
			return parsedConfig{}, err
		}
	}
	return pc, nil
}

// autoDetect takes the node's first usable InternalIP IPv4, else hashes the node name
// into the pool: an IPv6-only node still needs a 32-bit BGP identifier. A pool that
// passed ParsePool overlaps no unusable range, so the hashed ID is always valid.
func autoDetect(in Input, pool Pool) Result {
	if addr, ok := firstUsableIPv4(in.NodeAddresses, corev1.NodeInternalIP); ok {
		return Result{RouterID: addr, Source: kbgpv1.RouterIDSourceNodeIPv4}
	}
	return Result{RouterID: pool.Hash(in.NodeName), Source: kbgpv1.RouterIDSourceHash, Fallback: true}
}

// resolvedMessage is the RouterIDResolved event message of docs/router-id.md.
func resolvedMessage(id netip.Addr, source kbgpv1.RouterIDSource, node string) string {
	return fmt.Sprintf("Router ID resolved to %s via %s from node %s", id, via(source), node)
}

// via names a source the way the RouterIDResolved event of docs/router-id.md does
// ("via auto-detect").
func via(s kbgpv1.RouterIDSource) string {
	switch s {
	case kbgpv1.RouterIDSourceExplicit:
		return "explicit configuration"
	case kbgpv1.RouterIDSourceTemplate:
		return "template"
	case kbgpv1.RouterIDSourceNodeIPv4:
		return "auto-detect"
	default:
		return "hash of the node name"
	}
}
