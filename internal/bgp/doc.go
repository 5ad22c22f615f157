// Package bgp is kbgp's router-neutral model of a BGP speaker: what an instance is, which
// peers it has, which paths it originates and what state its sessions are in. It uses
// only the standard library (net/netip), so the speaker set and its tests never see the
// router implementation; internal/bgp/gobgp is the one package that imports GoBGP.
package bgp
