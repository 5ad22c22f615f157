package netlab

import "fmt"

// Bridge is a Linux bridge living in a namespace of its own, acting as a
// switch that joins several namespaces on one LAN segment.
type Bridge struct {
	// NS is the namespace holding the bridge (interface "br0").
	NS    *Namespace
	ports int
}

// Bridge creates a namespace named short holding an up bridge "br0".
// Namespaces join it with Attach.
func (l *Lab) Bridge(short string) *Bridge {
	l.t.Helper()
	ns := l.Namespace(short)
	ns.mustIP("link", "add", "br0", "type", "bridge")
	ns.mustIP("link", "set", "br0", "up")
	return &Bridge{NS: ns}
}

// Attach connects ns to the bridge with a veth pair: interface ifname (at
// most 15 characters) in ns, carrying addrs (CIDR strings), and a port
// "p<N>" enslaved to br0 in the bridge's namespace. It returns the port name.
func (b *Bridge) Attach(ns *Namespace, ifname string, addrs []string) string {
	l := b.NS.lab
	l.t.Helper()
	b.ports++
	port := fmt.Sprintf("p%d", b.ports)
	l.Link(ns, ifname, addrs, b.NS, port, nil)
	b.NS.mustIP("link", "set", port, "master", "br0")
	return port
}
