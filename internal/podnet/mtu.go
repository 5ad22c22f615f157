package podnet

import (
	"net"
	"os"
	"path/filepath"
)

// fallbackMTU is the MTU when the host has no physical interface up (a VM with only
// virtual devices, a test namespace): Ethernet's.
const fallbackMTU = 1500

// HostMTU is kubenet's default pod MTU: the smallest MTU of the host's interfaces that
// are up, not loopback and not virtual (a virtual device has no /sys/class/net/NAME/device),
// so a pod's packets fit every uplink.
func HostMTU() int {
	ifaces, err := net.Interfaces()
	if err != nil {
		return fallbackMTU
	}
	least := 0
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 || !physical(ifc.Name) {
			continue
		}
		if least == 0 || ifc.MTU < least {
			least = ifc.MTU
		}
	}
	if least == 0 {
		return fallbackMTU
	}
	return least
}

func physical(name string) bool {
	_, err := os.Stat(filepath.Join("/sys/class/net", name, "device"))
	return err == nil
}
