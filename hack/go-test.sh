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
log=/tmp/kbgp-go-test.$$
trap 'kill "$upstream" 2>/dev/null || true; rm -f /tmp/kbgp-go-test-upstream.$$ "$log"' EXIT

# test/cluster brings a whole cluster up (several minutes): 30 minutes per package.
set +e
$go test -race -count=1 -timeout 30m ./... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo "go-test: upstream's tests of the patched GoBGP packages (third_party/gobgp):"
wait "$upstream" || rc=$?
cat /tmp/kbgp-go-test-upstream.$$ | tee -a "$log"

# A failing e2e test dumps its routers' and agents' logs after its own messages, and
# CI keeps only the end of the output: the failures are repeated here, last, without
# the dumps. First the verdicts (failed tests and packages, panics, races), then the
# test files' own lines, the failures' messages last of all.
if [ "$rc" -ne 0 ]; then
	echo "go-test: what failed (the full output is above):"
	grep -E -e '^\s*--- FAIL' -e '^FAIL\s' -e '^panic: ' -e 'race detected' "$log" | cut -c1-300 | head -n 20 || true
	echo "go-test: the failing tests' own lines:"
	grep -E '^\s+[A-Za-z0-9_]+_test\.go:[0-9]+: ' "$log" | cut -c1-400 | tail -n 40 || true
fi
exit "$rc"
