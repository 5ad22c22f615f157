// Command kbgp-cni is the chained CNI plugin of kbgp's pod network (internal/cni,
// docs/pod-network.md). The container runtime executes it for every pod's ADD, CHECK
// and DEL, so it is a binary of its own that links only the plugin: a fraction of
// kbgp's size, memory and start time (hack/importcheck keeps it so). `kbgp
// install-cni` copies it, from beside the kbgp binary, into the CNI bin directory.
package main

import "kbgp.io/kbgp/internal/cni"

// version is set at build time with -ldflags "-X main.version=...", as kbgp's is.
var version = "devel"

func main() {
	cni.Main("CNI plugin " + cni.PluginType + " (kbgp " + version + ")")
}
