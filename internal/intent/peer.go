package intent

import (
	"fmt"
	"net/netip"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// Defaults of BGPPeerConfig, used when a peer has no peerConfigRef (the schema fills
// them in on objects that exist).
const (
	defaultPeerPort      = 179
	defaultConnectRetry  = 120 * time.Second
	defaultHoldTime      = 90 * time.Second
	defaultKeepalive     = 30 * time.Second
	defaultRestartTime   = 120 * time.Second
	defaultBFDInterval   = 300 * time.Millisecond
	defaultBFDMultiplier = 3
	// passwordKey is the Secret key holding the TCP MD5 password.
	passwordKey = "password"
	// notStarted ends the message of a Secret problem for peers that do not run.
	notStarted = "; peers using it are not started"
)

// buildPeer builds one peer and returns the advertisement selectors of its families.
// It returns a nil peer when the peer must not start: its BGPPeerConfig or auth Secret
// is missing, or the Secret has no password (never silently "no password").
func buildPeer(in Input, inst kbgpv1.BGPNodeInstance, np kbgpv1.BGPNodePeer) (*bgp.Peer, []familyAdvertisements, []kbgpv1.FailedResource) {
	addr, err := peerAddress(in, np)
	if err != nil {
		// The schema refuses this; a node config written around it is still not a crash.
		return nil, nil, []kbgpv1.FailedResource{{Kind: "BGPNodeConfig", Name: in.NodeConfig.Name,
			Message: fmt.Sprintf("peer %s: invalid peerAddress", np.Name)}}
	}
	p := &bgp.Peer{
		Name: np.Name, Address: addr, Interface: np.Interface, ASN: uint32(np.PeerASN), DynamicASN: bgp.ASNKind(np.DynamicASN), Port: defaultPeerPort,
		Timers:     bgp.Timers{ConnectRetry: defaultConnectRetry, HoldTime: defaultHoldTime, Keepalive: defaultKeepalive},
		Families:   []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast},
		BindDevice: np.VRF,
	}
	var spec kbgpv1.BGPPeerConfigSpec
	if np.PeerConfigRef != nil {
		pc, ok := in.PeerConfigs[np.PeerConfigRef.Name]
		if !ok {
			return nil, nil, []kbgpv1.FailedResource{{Kind: "BGPPeerConfig", Name: np.PeerConfigRef.Name, Message: "not found"}}
		}
		spec = pc.Spec
	}
	applyTransport(p, spec.Transport)
	applyTimers(p, spec.Timers)
	if np.LocalAddress != "" {
		if la, err := netip.ParseAddr(np.LocalAddress); err == nil {
			p.LocalAddress = la.Unmap()
		}
	}
	if np.LocalPort != nil {
		p.LocalPort = uint16(*np.LocalPort)
	}
	if spec.EBGPMultihop != nil && !p.IBGP(uint32(inst.LocalASN)) {
		p.EBGPMultihopTTL = uint8(*spec.EBGPMultihop)
	}
	if gr := spec.GracefulRestart; gr != nil && gr.Enabled {
		p.GracefulRestart = bgp.GracefulRestart{Enabled: true, RestartTime: defaultRestartTime}
		if gr.RestartTimeSeconds != nil {
			p.GracefulRestart.RestartTime = seconds(*gr.RestartTimeSeconds)
		}
		if gr.LongLivedStaleTimeSeconds != nil {
			p.GracefulRestart.LongLivedStaleTime = seconds(*gr.LongLivedStaleTimeSeconds)
		}
	}
	var ads []familyAdvertisements
	var ignored []kbgpv1.FailedResource
	p.MaxPrefixes = map[bgp.Family]uint32{}
	if len(spec.Families) > 0 {
		p.Families = nil
		for _, f := range spec.Families {
			fam := bgp.FamilyIPv4Unicast
			if f.AFI == kbgpv1.AFIIPv6 {
				fam = bgp.FamilyIPv6Unicast
			}
			p.Families = append(p.Families, fam)
			ads = append(ads, familyAdvertisements{family: fam, selector: f.Advertisements})
			if f.MaxPrefixes != nil {
				p.MaxPrefixes[fam] = uint32(*f.MaxPrefixes)
			}
			if f.ImportPodRoutes {
				p.ImportPodRoutes = append(p.ImportPodRoutes, fam)
			}
			if f.AddPaths != nil && f.AddPaths.SendMax > 0 {
				if p.AddPathsSend == nil {
					p.AddPathsSend = map[bgp.Family]uint8{}
				}
				p.AddPathsSend[fam] = uint8(min(f.AddPaths.SendMax, 255))
			}
			// The kernel routes go into the main table: a VRF's peers import nothing,
			// which the node status says (the peer itself runs).
			if f.Import != nil && np.VRF != "" {
				ignored = append(ignored, kbgpv1.FailedResource{Kind: "BGPPeerConfig", Name: np.PeerConfigRef.Name,
					Message: fmt.Sprintf("import of %s is ignored for peer %s in VRF %s: imported routes go into the main routing table only", fam, np.Name, np.VRF)})
			}
			if f.Import != nil && np.VRF == "" {
				if p.ImportRoutes == nil {
					p.ImportRoutes = map[bgp.Family]bgp.RouteImport{}
				}
				p.ImportRoutes[fam] = routeImport(*f.Import, fam)
			}
		}
	}
	// Every family is capped, by default too: a peer's unbounded table would take the
	// agent's memory.
	for _, fam := range p.Families {
		if _, set := p.MaxPrefixes[fam]; !set {
			p.MaxPrefixes[fam] = kbgpv1.DefaultMaxPrefixes
		}
	}
	p.BFD = bfd(spec.BFD)
	if m := np.Mesh; m != nil {
		p.Passive = m.Passive
		// A reflector reflects between all its mesh peers: its clients and the
		// other reflectors (RFC 4456), so a node changing role loses no route.
		if id, err := netip.ParseAddr(meshClusterID(inst)); err == nil && m.Role != kbgpv1.MeshRoleReflector {
			p.RouteReflectorClient, p.RouteReflectorClusterID = m.Role == kbgpv1.MeshRoleClient, id
		}
	}
	if spec.AuthSecretRef != nil {
		pw, problem := password(in, *spec.AuthSecretRef)
		if problem != nil {
			return nil, nil, []kbgpv1.FailedResource{*problem}
		}
		p.Password = pw
	}
	return p, ads, ignored
}

func applyTransport(p *bgp.Peer, t *kbgpv1.BGPTransport) {
	if t == nil {
		return
	}
	if t.PeerPort != nil {
		p.Port = uint16(*t.PeerPort)
	}
	if t.LocalPort != nil {
		p.LocalPort = uint16(*t.LocalPort)
	}
}

// bfd converts a peer config's BFD settings, with the schema's defaults for fields an
// object written before they existed lacks.
func bfd(b *kbgpv1.BGPBFD) bgp.BFD {
	if b == nil || !b.Enabled {
		return bgp.BFD{}
	}
	out := bgp.BFD{Enabled: true, MinRx: defaultBFDInterval, MinTx: defaultBFDInterval, DetectMultiplier: defaultBFDMultiplier}
	if b.MinRxMilliseconds != nil {
		out.MinRx = time.Duration(*b.MinRxMilliseconds) * time.Millisecond
	}
	if b.MinTxMilliseconds != nil {
		out.MinTx = time.Duration(*b.MinTxMilliseconds) * time.Millisecond
	}
	if b.DetectMultiplier != nil {
		out.DetectMultiplier = uint8(*b.DetectMultiplier)
	}
	return out
}

func applyTimers(p *bgp.Peer, t *kbgpv1.BGPTimers) {
	if t == nil {
		return
	}
	if t.ConnectRetryTimeSeconds != nil {
		p.Timers.ConnectRetry = seconds(*t.ConnectRetryTimeSeconds)
	}
	if t.HoldTimeSeconds != nil {
		p.Timers.HoldTime = seconds(*t.HoldTimeSeconds)
	}
	if t.KeepAliveTimeSeconds != nil {
		p.Timers.Keepalive = seconds(*t.KeepAliveTimeSeconds)
	}
}

// password reads the TCP MD5 password. The problem it reports names the Secret and the
// key, never the value.
func password(in Input, secretName string) (bgp.Password, *kbgpv1.FailedResource) {
	s, ok := in.Secrets[secretName]
	if !ok {
		return "", &kbgpv1.FailedResource{Kind: "Secret", Name: secretName, Message: "not found" + notStarted}
	}
	pw, ok := s.Data[passwordKey]
	if !ok || len(pw) == 0 {
		return "", &kbgpv1.FailedResource{Kind: "Secret", Name: secretName,
			Message: fmt.Sprintf("has no %q key", passwordKey) + notStarted}
	}
	return bgp.Password(pw), nil
}

func seconds(s int32) time.Duration { return time.Duration(s) * time.Second }

// meshClusterID is the route reflector cluster ID of the instance's mesh, "" when the
// node reflects for no one.
func meshClusterID(inst kbgpv1.BGPNodeInstance) string {
	if inst.Mesh == nil {
		return ""
	}
	return inst.Mesh.ClusterID
}
