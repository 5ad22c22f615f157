#!/usr/bin/env bash
# Runs every Go test with the race detector: kbgp's packages, and beside them upstream's
# tests of the GoBGP packages kbgp patches (third_party/gobgp is a module of its own,
# which ./... does not reach; hack/gobgp/rebuild.sh carries those tests into it).
#
# Upstream's tests listen on fixed ports (10179, 20179, 13784, ...): they run in a
# network namespace of their own (unshare --net, loopback only), where they can collide
# with nothing on the machine and reach nothing outside it. They are compiled first,
# outside it, since compiling may need the module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
(cd third_party/gobgp && $go test -race -count=1 -run '^$' ./... >/dev/null)
(
	cd third_party/gobgp
	unshare --net sh -c 'ip link set lo up && exec "$0" test -race -count=1 -timeout 30m ./...' "$(command -v "$go")"
) >/tmp/kbgp-go-test-upstream.$$ 2>&1 &
upstream=$!
trap 'kill "$upstream" 2>/dev/null || true; rm -f /tmp/kbgp-go-test-upstream.$$' EXIT

# test/cluster brings a whole cluster up (several minutes): 30 minutes per package.
rc=0
$go test -race -count=1 -timeout 30m ./... || rc=$?
echo "go-test: upstream's tests of the patched GoBGP packages (third_party/gobgp):"
wait "$upstream" || rc=$?
cat /tmp/kbgp-go-test-upstream.$$
exit "$rc"
