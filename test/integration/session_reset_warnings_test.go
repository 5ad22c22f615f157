package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// resetEdit is an edit that resets sessions: base objects applied first, then edited,
// and the warning kubectl must print for the edit.
type resetEdit struct {
	base, edited string
	warning      string
}

// Objects the edits start from. Each edit case applies its own names.
const (
	warnPeerConfig = `apiVersion: kbgp.io/v1alpha1
kind: BGPPeerConfig
metadata: {name: warn-pc}
spec:
  transport: {peerPort: 179}
  timers: {holdTimeSeconds: 90, keepAliveTimeSeconds: 30}
  gracefulRestart: {enabled: true, restartTimeSeconds: 120}
  ebgpMultihop: 1
  authSecretRef: warn-auth
  families: [{afi: ipv4, safi: unicast}, {afi: ipv6, safi: unicast}]
`
	warnClusterConfig = `apiVersion: kbgp.io/v1alpha1
kind: BGPClusterConfig
metadata: {name: warn-cc}
spec:
  nodeSelector: {matchLabels: {rack: warn}}
  bgpInstances:
  - localASN: 65001
    routerID: 10.0.0.1
    localPort: 179
    peers:
    - {name: tor-a, peerAddress: 10.1.1.1, peerASN: 65002}
`
	warnOverride = `apiVersion: kbgp.io/v1alpha1
kind: BGPNodeConfigOverride
metadata: {name: warn-ovr}
spec:
  nodeRef: warn-node
  bgpInstances:
  - localASN: 65001
    routerID: 10.10.10.10
    localPort: 1790
    peers:
    - {name: tor-a, localAddress: 10.1.1.10, localPort: 40179}
`
	warnAdvertisement = `apiVersion: kbgp.io/v1alpha1
kind: BGPAdvertisement
metadata: {name: warn-adv}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    attributes: {med: 10}
`
	warnSecret = `apiVersion: v1
kind: Secret
metadata: {name: warn-auth, namespace: kbgp-system}
stringData: {password: one}
`
)

// resetEdits are the session-resetting rows of docs/session-resets.md, by their first
// cell, each with the edits that show it.
var resetEdits = map[string][]resetEdit{
	"peer address": {
		{warnClusterConfig, strings.Replace(warnClusterConfig, "10.1.1.1", "10.1.1.2", 1), "or vrf resets the BGP session of peers 65001/tor-a"},
		{unnumbered("External"), strings.Replace(unnumbered("External"), "interface: up1", "interface: up2", 1), "or vrf resets the BGP session of peers 65001/tor-a"},
	},
	"peer ASN (`peerASN`, `dynamicASN`)": {
		{warnClusterConfig, strings.Replace(warnClusterConfig, "peerASN: 65002", "peerASN: 65003", 1), "or vrf resets the BGP session of peers 65001/tor-a"},
		{warnClusterConfig, strings.Replace(warnClusterConfig, "peerASN: 65002", "dynamicASN: External", 1), "or vrf resets the BGP session of peers 65001/tor-a"},
		{unnumbered("External"), unnumbered("Internal"), "or vrf resets the BGP session of peers 65001/tor-a"},
	},
	"`transport.peerPort`":            {{warnPeerConfig, strings.Replace(warnPeerConfig, "peerPort: 179", "peerPort: 1179", 1), "changing transport.peerPort resets the BGP session of every peer that uses it"}},
	"`localAddress` (source address)": {{warnOverride, strings.Replace(warnOverride, "localAddress: 10.1.1.10", "localAddress: 10.1.1.11", 1), "changing localAddress or localPort resets the BGP session of peers 65001/tor-a on node warn-node"}},
	"`transport.localPort`": {
		{warnPeerConfig, strings.Replace(warnPeerConfig, "peerPort: 179}", "peerPort: 179, localPort: 40179}", 1), "changing transport.localPort resets"},
		{warnOverride, strings.Replace(warnOverride, "localPort: 40179", "localPort: 40180", 1), "changing localAddress or localPort resets the BGP session of peers 65001/tor-a"},
	},
	"`timers.holdTimeSeconds`":                  {{warnPeerConfig, strings.Replace(warnPeerConfig, "holdTimeSeconds: 90", "holdTimeSeconds: 30", 1), "changing timers.holdTimeSeconds resets"}},
	"`ebgpMultihop` (TTL)":                      {{warnPeerConfig, strings.Replace(warnPeerConfig, "ebgpMultihop: 1", "ebgpMultihop: 4", 1), "changing ebgpMultihop resets"}},
	"`gracefulRestart` (enabled, restart time)": {{warnPeerConfig, strings.Replace(warnPeerConfig, "restartTimeSeconds: 120", "restartTimeSeconds: 60", 1), "changing gracefulRestart resets"}},
	"`families` (set of address families)":      {{warnPeerConfig, strings.Replace(warnPeerConfig, ", {afi: ipv6, safi: unicast}", "", 1), "changing the set of families resets"}},
	"`families[].addPaths` (on, off, `sendMax`)": {
		{warnPeerConfig, strings.Replace(warnPeerConfig, "{afi: ipv4, safi: unicast}", "{afi: ipv4, safi: unicast, addPaths: {sendMax: 4}}", 1), "changing families[].addPaths resets"},
		{strings.Replace(warnPeerConfig, "{afi: ipv6, safi: unicast}", "{afi: ipv6, safi: unicast, addPaths: {sendMax: 4}}", 1),
			strings.Replace(warnPeerConfig, "{afi: ipv6, safi: unicast}", "{afi: ipv6, safi: unicast, addPaths: {sendMax: 8}}", 1), "changing families[].addPaths resets"},
	},
	"TCP MD5 password (Secret content or `authSecretRef`)": {
		{warnPeerConfig, strings.Replace(warnPeerConfig, "authSecretRef: warn-auth", "authSecretRef: warn-auth-2", 1), "changing authSecretRef resets"},
		{warnSecret, strings.Replace(warnSecret, "password: one", "password: two", 1), "Secret warn-auth: changing password resets the BGP session of every peer whose BGPPeerConfig names it"},
	},
	"`vrf`": {{warnClusterConfig, strings.Replace(warnClusterConfig, "peerASN: 65002}", "peerASN: 65002, vrf: red}", 1), "or vrf resets"}},
	"`localASN`, or an override's `nodeLocalASN`": {
		{warnClusterConfig, strings.Replace(warnClusterConfig, "localASN: 65001", "localASN: 65011", 1), "removing instance 65001 (or changing its localASN) closes all its sessions"},
		{warnOverride, strings.Replace(warnOverride, "localPort: 1790", "localPort: 1790\n    nodeLocalASN: 4200000001", 1), "changing nodeLocalASN of instance 65001 closes all its sessions on node warn-node"},
	},
	"router ID (`routerID`, the resolved value changing)": {
		{warnClusterConfig, strings.Replace(warnClusterConfig, "routerID: 10.0.0.1", "routerID: 10.0.0.2", 1), "changing routerID or routerIDPool of instance 65001 takes effect at the next agent restart"},
		{warnOverride, strings.Replace(warnOverride, "routerID: 10.10.10.10", "routerID: 10.10.10.11", 1), "changing localPort, listenAddresses or routerID of instance 65001 resets all its sessions on node warn-node"},
	},
	"`localPort` (listener on or off, another port), listen addresses": {
		{warnClusterConfig, strings.Replace(warnClusterConfig, "localPort: 179", "localPort: 1179", 1), "changing localPort or listenAddresses of instance 65001 resets all its sessions"},
		{warnClusterConfig, strings.Replace(warnClusterConfig, "localPort: 179", "localPort: 179\n    listenAddresses: [10.1.1.10]", 1), "changing localPort or listenAddresses of instance 65001 resets all its sessions"},
		{warnOverride, strings.Replace(warnOverride, "localPort: 1790", "localPort: 1790\n    listenAddresses: [10.1.1.10]", 1), "changing localPort, listenAddresses or routerID of instance 65001 resets all its sessions on node warn-node"},
	},
	"VRF of a speaker": {{warnClusterConfig, strings.Replace(warnClusterConfig, "peerASN: 65002}", "peerASN: 65002, vrf: blue}", 1), "or vrf resets"}},
}

// unnumbered is warnClusterConfig with its peer over an interface, of any ASN of the
// kind given.
func unnumbered(kind string) string {
	return strings.Replace(warnClusterConfig, "peerAddress: 10.1.1.1, peerASN: 65002", "interface: up1, dynamicASN: "+kind, 1)
}

// meshClusterConfig is warnClusterConfig with a mesh whose reflectors are the nodes
// labelled reflectors.
func meshClusterConfig(reflectors string) string {
	return strings.Replace(warnClusterConfig, "    localPort: 179\n", "    localPort: 179\n    mesh: {enabled: true, routeReflectors: {nodeSelector: {matchLabels: {"+reflectors+"}}, clusterID: 10.0.0.9}}\n", 1)
}

// keptEdits reset nothing and must produce no warning.
var keptEdits = []resetEdit{
	{base: warnAdvertisement, edited: strings.Replace(warnAdvertisement, "{med: 10}", "{med: 10, weightedECMP: true}", 1)},
	{base: warnPeerConfig, edited: strings.Replace(warnPeerConfig, "keepAliveTimeSeconds: 30", "keepAliveTimeSeconds: 10", 1)},
	{base: warnPeerConfig, edited: strings.Replace(warnPeerConfig, "ebgpMultihop: 1", "ebgpMultihop: 1\n  gracefulShutdown: {enabled: true, waitSeconds: 60}", 1)},
	{base: warnPeerConfig, edited: strings.Replace(warnPeerConfig, "{afi: ipv4, safi: unicast}, {afi: ipv6, safi: unicast}", "{afi: ipv6, safi: unicast}, {afi: ipv4, safi: unicast, advertisements: {matchLabels: {a: b}}}", 1)},
	{base: warnPeerConfig, edited: strings.Replace(warnPeerConfig, "{afi: ipv4, safi: unicast}", "{afi: ipv4, safi: unicast, importPodRoutes: true}", 1)},
	{base: warnClusterConfig, edited: strings.Replace(warnClusterConfig, "{matchLabels: {rack: warn}}", "{matchLabels: {rack: warn2}}", 1) + "    - {name: tor-b, peerAddress: 10.1.1.3, peerASN: 65002}\n"},
	{base: meshClusterConfig("rr: a"), edited: meshClusterConfig("rr: b")},
}

// TestSessionResetWarnings installs the change-warning policies and walks the tables
// of docs/session-resets.md: every row that resets sessions has its edits here, and
// each edit, applied with kubectl, prints its warning; edits that reset nothing print
// none. A row added to the document without an edit here fails the test.
func TestSessionResetWarnings(t *testing.T) {
	ensureNamespace(t, "kbgp-system")
	k := newKubectl(t, "session-reset-warnings")
	k.run("apply", "--server-side", "-f", filepath.Join(configDir("admission"), "session_reset_warnings.yaml"))
	t.Cleanup(func() { k.run("delete", "-f", filepath.Join(configDir("admission"), "session_reset_warnings.yaml")) })

	rows := resettingRows(t)
	for _, row := range rows {
		if _, ok := resetEdits[row]; !ok {
			t.Errorf("docs/session-resets.md row %q resets sessions but has no edit in resetEdits", row)
		}
	}
	for row := range resetEdits {
		if !contains(rows, row) {
			t.Errorf("resetEdits has %q, which is not a resetting row of docs/session-resets.md", row)
		}
	}

	// The API server enforces a new policy within about a second, each of the file's
	// policies (one a kind) on its own: one CI run saw the peer config's in force and
	// the cluster config's not yet. Wait for an edit of every kind to warn.
	probes := map[string]resetEdit{}
	for _, row := range rows {
		for _, e := range resetEdits[row] {
			if kind := editedKind(t, e); probes[kind] == (resetEdit{}) {
				probes[kind] = e
			}
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for kind, probe := range probes {
		for !strings.Contains(applyEdit(t, k, probe), probe.warning) {
			if time.Now().After(deadline) {
				t.Fatalf("the warning policy for %s never took effect", kind)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	for _, row := range rows {
		for i, e := range resetEdits[row] {
			out := applyEdit(t, k, e)
			if !strings.Contains(out, "Warning: ") || !strings.Contains(out, e.warning) {
				t.Errorf("%s (edit %d): kubectl printed %q, want a warning containing %q", row, i, out, e.warning)
			}
		}
	}
	for i, e := range keptEdits {
		if out := applyEdit(t, k, e); strings.Contains(out, "Warning:") {
			t.Errorf("kept edit %d: kubectl printed a warning: %q", i, out)
		}
	}
}

// editedKind is the kind of the object e edits.
func editedKind(t *testing.T, e resetEdit) string {
	t.Helper()
	for _, line := range strings.Split(e.edited, "\n") {
		if kind, ok := strings.CutPrefix(line, "kind: "); ok {
			return kind
		}
	}
	t.Fatalf("an edit without a kind: %q", e.edited)
	return ""
}

// applyEdit applies e's base, then its edit, and returns what kubectl printed for the
// edit; the objects are deleted afterwards.
func applyEdit(t *testing.T, k *kubectl, e resetEdit) string {
	t.Helper()
	dir := t.TempDir()
	base, edited := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(base, []byte(e.base), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte(e.edited), 0o600); err != nil {
		t.Fatal(err)
	}
	k.run("apply", "--server-side", "-f", base)
	defer k.run("delete", "--ignore-not-found", "-f", edited)
	return k.run("apply", "--server-side", "-f", edited)
}

// resettingRows are the first cells of the rows of docs/session-resets.md whose
// session is reset ("**reset**") or whose speaker is recreated (every row of the
// per-instance table).
func resettingRows(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(server.RepoRoot, "docs", "session-resets.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	section := ""
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "## ") {
			section = line
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 2 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		first, second := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
		switch {
		case first == "change":
		case strings.HasPrefix(section, "## Per peer") && strings.HasPrefix(second, "**reset**"),
			strings.HasPrefix(section, "## Per BGP instance"):
			rows = append(rows, first)
		}
	}
	if len(rows) < 10 {
		t.Fatalf("found only %d resetting rows in docs/session-resets.md: %v", len(rows), rows)
	}
	return rows
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
