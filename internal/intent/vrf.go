package intent

import (
	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// missingVRF is the failure of the peers whose VRF device does not exist on the node.
// They are not started, and unlike peers whose objects went missing they do not keep
// their previous configuration: a session cannot live in a device that is gone.
func missingVRF(vrf string) kbgpv1.FailedResource {
	return kbgpv1.FailedResource{Kind: "VRF", Name: vrf,
		Message: "no such network device on the node; peers in it are not started"}
}

// vrfListens says whether the speaker of vrf listens when its instance has a listen
// port. A listener bound to a device and an unbound one cannot share a port on Linux
// (bind fails with EADDRINUSE; GoBGP sets no SO_REUSEPORT), while listeners bound to
// different devices can. So the VRF speakers listen unless the instance also has
// default-VRF peers, whose speaker then owns the port; the VRF speakers dial out, which
// brings their sessions up all the same.
func vrfListens(inst kbgpv1.BGPNodeInstance, vrf string) bool {
	if vrf == "" {
		return true
	}
	for _, p := range inst.AllPeers() {
		if p.VRF == "" {
			return false
		}
	}
	return true
}
