// Package checkpoint owns the agent's restart state, the one writer and reader of its
// state directory (a hostPath that outlives the pod). Two files live there: the
// checkpoint, the node-local record of the BGP state an agent last applied (the
// speakers' router IDs and listeners, their peers and what each peer is sent), and the
// marker a graceful stop leaves (marker.go). An agent that starts while the API server
// is unreachable restores its speakers from the checkpoint instead of announcing
// nothing, so the routers keep the node's routes; one that starts within the marker's
// window, or after a crash on the same boot, restarts as a graceful-restart speaker
// (Restart).
//
// The file is input read from disk: Decode checks what it reads and refuses anything
// the speakers could not run as written. It never holds a secret: peers with a TCP MD5
// key are left out (docs/security.md).
package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// Version is the format of the file. A file of another version is refused: the agent
// then starts as it would without one. Version 2 added the node name.
const Version = 2

// Checkpoint is the applied desired state, the node and the boot it was recorded in.
type Checkpoint struct {
	// NodeName is the node it was written on: a disk image of another node must not
	// make this one announce that node's pod CIDR, router ID and addresses.
	NodeName string
	// BootID is the kernel's boot ID when it was written: the node's forwarding state
	// (which the routes announce) survives an agent restart, not a reboot.
	BootID string
	// Desired is what the speakers ran, without the peers that use a TCP MD5 key.
	Desired bgp.Desired
}

// file is the encoded form: instances as a list (their key is a struct), sorted, so
// one state always encodes to the same bytes and an unchanged state is not rewritten.
// Peers and paths use the bgp types' own field names; Password is always empty.
type file struct {
	Version   int        `json:"version"`
	NodeName  string     `json:"nodeName"`
	BootID    string     `json:"bootID"`
	Instances []instance `json:"instances"`
}

type instance struct {
	Key    bgp.InstanceKey   `json:"key"`
	Global bgp.Global        `json:"global"`
	Peers  []bgp.DesiredPeer `json:"peers"`
}

// Encode renders c. Peers with a password are left out; Global.Restarting, a start-up
// condition rather than state, is not recorded.
func Encode(c Checkpoint) ([]byte, error) {
	f := file{Version: Version, NodeName: c.NodeName, BootID: c.BootID, Instances: []instance{}}
	for _, key := range slices.SortedFunc(maps.Keys(c.Desired.Instances), bgp.InstanceKey.Compare) {
		di := c.Desired.Instances[key]
		g := di.Global
		g.Restarting = false
		inst := instance{Key: key, Global: g, Peers: []bgp.DesiredPeer{}}
		for _, name := range slices.Sorted(maps.Keys(di.Peers)) {
			if p := di.Peers[name]; p.Password == "" {
				inst.Peers = append(inst.Peers, p)
			}
		}
		f.Instances = append(f.Instances, inst)
	}
	return json.MarshalIndent(f, "", " ")
}

// Decode parses a file Encode wrote and checks it: the version, unknown fields, one
// entry per instance and per peer, peers named by their key, valid addresses and
// families, and no password.
func Decode(data []byte) (Checkpoint, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	if dec.More() {
		return Checkpoint{}, errors.New("checkpoint: data after the document")
	}
	if f.Version != Version {
		return Checkpoint{}, fmt.Errorf("checkpoint: version %d, want %d", f.Version, Version)
	}
	d := bgp.Desired{Instances: make(map[bgp.InstanceKey]bgp.DesiredInstance, len(f.Instances))}
	for _, inst := range f.Instances {
		if _, dup := d.Instances[inst.Key]; dup {
			return Checkpoint{}, fmt.Errorf("checkpoint: instance %s twice", inst.Key)
		}
		di, err := decodeInstance(inst)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("checkpoint: instance %s: %w", inst.Key, err)
		}
		d.Instances[inst.Key] = di
	}
	return Checkpoint{NodeName: f.NodeName, BootID: f.BootID, Desired: d}, nil
}

// Belongs says why c must not be restored on node in boot, nil when it may: what it
// announces (the node's pod CIDR, Services with local endpoints, its router ID) is
// forwarding state of the node and boot it was written in; after a reboot no pod
// serves it yet, and another node's is wrong altogether. A boot that cannot be told
// ("") matches none.
func (c Checkpoint) Belongs(node, boot string) error {
	if c.NodeName != node {
		return fmt.Errorf("checkpoint of node %q, this is %q", c.NodeName, node)
	}
	if boot == "" || c.BootID != boot {
		return fmt.Errorf("checkpoint of boot %q, now %q: the forwarding state it describes did not survive", c.BootID, boot)
	}
	return nil
}

func decodeInstance(inst instance) (bgp.DesiredInstance, error) {
	g := inst.Global
	if g.ASN == 0 || g.ASN != inst.Key.LocalASN {
		return bgp.DesiredInstance{}, fmt.Errorf("ASN %d does not match the key", g.ASN)
	}
	if !g.RouterID.Is4() {
		return bgp.DesiredInstance{}, fmt.Errorf("router ID %q is not an IPv4 address", g.RouterID)
	}
	for _, a := range g.ListenAddresses {
		if !a.IsValid() {
			return bgp.DesiredInstance{}, errors.New("invalid listen address")
		}
	}
	if g.Restarting {
		return bgp.DesiredInstance{}, errors.New("restarting is not recorded")
	}
	peers := make(map[string]bgp.DesiredPeer, len(inst.Peers))
	for _, p := range inst.Peers {
		if err := checkPeer(p); err != nil {
			return bgp.DesiredInstance{}, fmt.Errorf("peer %q: %w", p.Name, err)
		}
		if _, dup := peers[p.Name]; dup {
			return bgp.DesiredInstance{}, fmt.Errorf("peer %q twice", p.Name)
		}
		peers[p.Name] = p
	}
	return bgp.DesiredInstance{Global: g, Peers: peers}, nil
}

func checkPeer(p bgp.DesiredPeer) error {
	switch {
	case p.Name == "":
		return errors.New("no name")
	case !p.Address.IsValid():
		return errors.New("invalid address")
	case p.ASN == 0 && p.DynamicASN == "":
		return errors.New("no ASN")
	case p.Password != "":
		return errors.New("a password is never recorded")
	case len(p.Families) == 0:
		return errors.New("no family")
	}
	for _, fam := range p.Families {
		if fam != bgp.FamilyIPv4Unicast && fam != bgp.FamilyIPv6Unicast {
			return fmt.Errorf("unknown family %q", fam)
		}
	}
	for prefix := range p.Export {
		if !prefix.IsValid() || prefix != prefix.Masked() {
			return fmt.Errorf("invalid prefix %s", prefix)
		}
	}
	return nil
}
