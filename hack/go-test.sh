#!/usr/bin/env bash
# Runs every Go test: with the race detector, except for the packages whose tests run
# GoBGP speakers in-process (they import gobgptest).
#
# GoBGP v4.8.0 races with itself when it runs: StartBgp writes package globals that
# every other BgpServer in the process reads (osrg/gobgp#3659, merged after v4.8.0),
# ListPath reads paths a session goroutine marks stale, and the peer-config copy is
# shared between goroutines. Those reports are in GoBGP, not in kbgp, and they make
# -race fail at random. The packages above the speaker (manager, agent, ...) are tested
# on bgpfake and keep -race; the adapter and the component tests against GoBGP run
# without it, and the e2e tests run the agent as a process against real routers.
set -euo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
speaker_pkgs=()
race_pkgs=()
for pkg in $($go list ./...); do
	if $go list -test -deps "$pkg" | grep -qx 'kbgp.io/kbgp/internal/testing/gobgptest'; then
		speaker_pkgs+=("$pkg")
	else
		race_pkgs+=("$pkg")
	fi
done

# test/cluster brings a whole cluster up (several minutes): 30 minutes per package.
$go test -race -count=1 -timeout 30m "${race_pkgs[@]}"
echo "go-test: without -race (in-process GoBGP speakers): ${speaker_pkgs[*]}"
$go test -count=1 -timeout 30m "${speaker_pkgs[@]}"
