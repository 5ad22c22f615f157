package main

import (
	"os"
	"path/filepath"

	"kbgp.io/kbgp/internal/cni"
)

// runsAsCNIPlugin reports whether the binary was started as kbgp-cni: the DaemonSet's
// init container copies it into the CNI bin dir under that name, and the container
// runtime execs it by that name as a chained plugin.
func runsAsCNIPlugin() bool {
	return filepath.Base(os.Args[0]) == cni.PluginType
}

// runCNIPlugin is kbgp-cni's main: the CNI skeleton reads the command from the
// environment and the config from stdin, and exits 1 on failure.
func runCNIPlugin() {
	cni.Main("CNI plugin " + cni.PluginType + " (kbgp " + buildVersion() + ")")
}
