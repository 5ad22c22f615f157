package routerid

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kbgp.io/kbgp/internal/sanitize"
)

// MaxRouterIDLength bounds a configured routerID, as the CRD does. It is checked before
// any parsing or regular expression, so crafted input costs nothing (docs/router-id.md,
// "Length first") and errors never echo more than this many bytes.
const MaxRouterIDLength = 256

// MaxAnnotationValueLength bounds an annotation value read through a template. Values
// are user input too: anyone who can annotate the Node writes them, and an IPv4
// address needs 15 bytes, so anything this long is rejected without being parsed.
const MaxAnnotationValueLength = 256

const (
	annotationOpen  = "${node.annotations['"
	annotationClose = "']}"
	// maxAnnotationNameLen is Kubernetes' bound on the name part of a key. The prefix
	// bound (253) needs no check: MaxRouterIDLength less the template frame leaves at
	// most 233 bytes for the whole key.
	maxAnnotationNameLen = 63
	supportedForms       = "an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}"
)

// annotationKeyPattern is docs/router-id.md's Kubernetes annotation-key rule: an optional
// DNS-subdomain prefix and '/', then a name. The document's whole-template pattern is
// not used: its key class lacks '_', which Kubernetes and the CRD accept; the literal
// frame around the key is matched with strings functions instead.
var annotationKeyPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$`)

// templateKind says where a template takes its address from.
type templateKind int

const (
	noTemplate templateKind = iota
	nodeInternalIPv4
	nodeExternalIPv4
	nodeAnnotation
)

// routerIDSpec is a parsed routerID: a literal or a template, never both.
type routerIDSpec struct {
	literal netip.Addr
	kind    templateKind
	key     string // the annotation key when kind is nodeAnnotation
}

// parseRouterID parses a configured routerID by whitelist: a usable IPv4 literal, one
// of the fixed templates, or the annotation template with a valid key. Anything else
// (shell syntax, text/template syntax, text around a template) is rejected; nothing is
// ever interpolated or executed.
func parseRouterID(s string) (routerIDSpec, error) {
	if len(s) > MaxRouterIDLength {
		return routerIDSpec{}, fmt.Errorf("routerID is %d bytes, longer than the %d allowed", len(s), MaxRouterIDLength)
	}
	switch s {
	case "${NODE_IP}", "${NODE_IPV4}":
		return routerIDSpec{kind: nodeInternalIPv4}, nil
	case "${NODE_EXTERNAL_IP}":
		return routerIDSpec{kind: nodeExternalIPv4}, nil
	}
	if key, ok := cutFrame(s); ok {
		if err := validateAnnotationKey(key); err != nil {
			return routerIDSpec{}, fmt.Errorf("routerID template: %w", err)
		}
		return routerIDSpec{kind: nodeAnnotation, key: key}, nil
	}
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return routerIDSpec{}, fmt.Errorf("routerID %q is not %s", s, supportedForms)
	}
	if err := Validate(addr); err != nil {
		return routerIDSpec{}, fmt.Errorf("routerID: %w", err)
	}
	return routerIDSpec{literal: addr}, nil
}

// cutFrame returns the key of an annotation template.
func cutFrame(s string) (string, bool) {
	key, ok := strings.CutPrefix(s, annotationOpen)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(key, annotationClose)
}

// validateAnnotationKey applies Kubernetes' annotation-key rules. The explicit checks
// come first so that each attack from docs/router-id.md gets a message that names it; the
// regular expression then admits only the Kubernetes form. '..' is rejected although
// Kubernetes allows it in a name: it has no use in a router-ID key and looks like path
// traversal to every reader of the logs.
func validateAnnotationKey(key string) error {
	if key == "" {
		return errors.New("annotation key is empty")
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c >= 0x80:
			return fmt.Errorf("annotation key %q is not ASCII", key)
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("annotation key %q contains a control character", key)
		case c == '\'' || c == '"' || c == '`':
			return fmt.Errorf("annotation key %q contains a quote", key)
		}
	}
	if strings.Contains(key, "..") {
		return fmt.Errorf("annotation key %q contains '..'", key)
	}
	if !annotationKeyPattern.MatchString(key) {
		return fmt.Errorf("annotation key %q is not a Kubernetes annotation key: [DNS-subdomain prefix/]name of letters, digits, '-', '_' and '.'", key)
	}
	name := key[strings.LastIndexByte(key, '/')+1:]
	if len(name) > maxAnnotationNameLen {
		return fmt.Errorf("annotation key %q has a name part of %d characters, more than %d", key, len(name), maxAnnotationNameLen)
	}
	return nil
}

// resolveTemplate reads the address a template names from the node. A template that
// yields nothing usable is an error, never a silent fallback to the hash: the user
// asked for a specific source, and a hashed ID would hide the mistake.
func resolveTemplate(spec routerIDSpec, in Input) (netip.Addr, error) {
	switch spec.kind {
	case nodeInternalIPv4:
		return nodeAddress(in, corev1.NodeInternalIP)
	case nodeExternalIPv4:
		return nodeAddress(in, corev1.NodeExternalIP)
	default:
		return annotationAddress(in.NodeAnnotations, spec.key)
	}
}

func nodeAddress(in Input, typ corev1.NodeAddressType) (netip.Addr, error) {
	addr, ok := firstUsableIPv4(in.NodeAddresses, typ)
	if !ok {
		return netip.Addr{}, fmt.Errorf("%w: node %s has no usable %s IPv4 address", ErrTemplateResolution, in.NodeName, typ)
	}
	return addr, nil
}

// annotationAddress reads an IPv4 router ID from an annotation. The value is length-
// checked before parsing and sanitised before it appears in a message, because
// whoever can annotate the Node controls it.
func annotationAddress(annotations map[string]string, key string) (netip.Addr, error) {
	v, ok := annotations[key]
	if !ok {
		return netip.Addr{}, fmt.Errorf("%w: annotation '%s' not found", ErrTemplateResolution, key)
	}
	if len(v) > MaxAnnotationValueLength {
		return netip.Addr{}, fmt.Errorf("%w: annotation '%s' value is %d bytes, longer than the %d allowed", ErrTemplateResolution, key, len(v), MaxAnnotationValueLength)
	}
	addr, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w: annotation '%s' value '%s' is not an IPv4 address", ErrTemplateResolution, key, sanitize.Line(v))
	}
	if err := Validate(addr); err != nil {
		return netip.Addr{}, fmt.Errorf("%w: annotation '%s': %w", ErrTemplateResolution, key, err)
	}
	return addr, nil
}
