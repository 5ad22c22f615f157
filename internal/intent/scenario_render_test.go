package intent_test

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// renderResult writes Build's result as stable text, one fact a line, so that a
// scenario's expectation reads like a router's configuration and a change shows as a
// line diff: each speaker, its peers with the settings that are set, each route a peer
// is sent with its attributes, then what failed and what was refused.
func renderResult(res intent.Result) string {
	var b strings.Builder
	keys := slices.SortedFunc(maps.Keys(res.Desired.Instances), func(a, b bgp.InstanceKey) int {
		return cmp.Or(cmp.Compare(a.LocalASN, b.LocalASN), cmp.Compare(a.VRF, b.VRF))
	})
	for _, k := range keys {
		renderInstance(&b, k, res.Desired.Instances[k])
	}
	renderFailed(&b, "failed", res.Failed)
	if res.Exports != nil {
		renderFailed(&b, "refused", res.Exports.Refused())
	}
	if res.ShutdownWait != 0 {
		fmt.Fprintf(&b, "shutdown-wait %s\n", res.ShutdownWait)
	}
	return b.String()
}

func renderInstance(b *strings.Builder, k bgp.InstanceKey, di bgp.DesiredInstance) {
	fmt.Fprintf(b, "instance AS%d", k.LocalASN)
	if k.VRF != "" {
		fmt.Fprintf(b, " vrf %s", k.VRF)
	}
	fmt.Fprintf(b, " router-id %s", di.Global.RouterID)
	if di.Global.BindDevice != "" {
		fmt.Fprintf(b, " bind-device %s", di.Global.BindDevice)
	}
	b.WriteString("\n")
	if g := di.Global; g.ListenPort != 0 {
		fmt.Fprintf(b, "  listen port %d%s\n", g.ListenPort, joined(" on", g.ListenAddresses))
	}
	for _, c := range di.BMP {
		fmt.Fprintf(b, "  bmp %s port %d %s stats %s\n", c.Address, c.Port, c.Monitoring, c.StatisticsInterval)
	}
	for _, name := range slices.Sorted(maps.Keys(di.Peers)) {
		renderPeer(b, di.Peers[name])
	}
}

func renderPeer(b *strings.Builder, p bgp.DesiredPeer) {
	fmt.Fprintf(b, "  peer %s %s AS%d port %d\n", p.Name, p.Address, p.ASN, p.Port)
	for _, f := range p.Families {
		fmt.Fprintf(b, "    family %s max-prefixes %d\n", f, p.MaxPrefixes[f])
	}
	if p.LocalAddress.IsValid() {
		fmt.Fprintf(b, "    local-address %s\n", p.LocalAddress)
	}
	if p.LocalPort != 0 {
		fmt.Fprintf(b, "    local-port %d\n", p.LocalPort)
	}
	t := p.Timers
	fmt.Fprintf(b, "    timers connect-retry %s hold %s keepalive %s\n", t.ConnectRetry, t.HoldTime, t.Keepalive)
	if gr := p.GracefulRestart; gr.Enabled {
		fmt.Fprintf(b, "    graceful-restart restart %s long-lived-stale %s\n", gr.RestartTime, gr.LongLivedStaleTime)
	}
	if p.EBGPMultihopTTL != 0 {
		fmt.Fprintf(b, "    ebgp-multihop %d\n", p.EBGPMultihopTTL)
	}
	if p.Password != "" {
		fmt.Fprintf(b, "    password %s\n", p.Password) // redacted by its String method
	}
	if p.BindDevice != "" {
		fmt.Fprintf(b, "    bind-device %s\n", p.BindDevice)
	}
	if p.BFD.Enabled {
		fmt.Fprintf(b, "    bfd min-rx %s min-tx %s multiplier %d\n", p.BFD.MinRx, p.BFD.MinTx, p.BFD.DetectMultiplier)
	}
	for _, f := range p.ImportPodRoutes {
		fmt.Fprintf(b, "    import-pod-routes %s\n", f)
	}
	for _, prefix := range slices.SortedFunc(maps.Keys(p.Export), netip.Prefix.Compare) {
		fmt.Fprintf(b, "    route %s%s\n", prefix, renderAttributes(p.Export[prefix]))
	}
}

// renderAttributes writes communities as ASN:value (65535:0 is graceful shutdown,
// 65535:65281 no-export), large communities as a:b:c.
func renderAttributes(a bgp.PathAttributes) string {
	var s strings.Builder
	for i, c := range a.Communities {
		if i == 0 {
			s.WriteString(" communities")
		}
		fmt.Fprintf(&s, " %d:%d", c>>16, c&0xFFFF)
	}
	for i, c := range a.LargeCommunities {
		if i == 0 {
			s.WriteString(" large")
		}
		fmt.Fprintf(&s, " %d:%d:%d", c.GlobalAdmin, c.LocalData1, c.LocalData2)
	}
	if a.LocalPreference != nil {
		fmt.Fprintf(&s, " local-pref %d", *a.LocalPreference)
	}
	if a.NextHop.IsValid() {
		fmt.Fprintf(&s, " next-hop %s", a.NextHop)
	}
	return s.String()
}

func renderFailed(b *strings.Builder, title string, failed []kbgpv1.FailedResource) {
	for _, f := range failed {
		fmt.Fprintf(b, "%s %s %s: %s\n", title, f.Kind, f.Name, f.Message)
	}
}

func joined(prefix string, addrs []netip.Addr) string {
	var s strings.Builder
	for _, a := range addrs {
		if s.Len() == 0 {
			s.WriteString(prefix)
		}
		fmt.Fprintf(&s, " %s", a)
	}
	return s.String()
}
