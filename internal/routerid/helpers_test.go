package routerid

import (
	"net/netip"
	"strings"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// cmpAddr compares netip.Addr values, whose fields are unexported.
var cmpAddr = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

func internalIP(a string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a}
}

func externalIP(a string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: a}
}

func addrs(a ...corev1.NodeAddress) []corev1.NodeAddress { return a }

func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

// errText returns an error's message, or "" for nil, so that tables can state the
// exact message users will read.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// annotationTemplate builds ${node.annotations['key']}.
func annotationTemplate(key string) string { return annotationOpen + key + annotationClose }

// kib10 is a 10 KiB string: the "long input" case of docs/router-id.md ("Length first").
var kib10 = strings.Repeat("a", 10*1024)
