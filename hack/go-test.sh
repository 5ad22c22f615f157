#!/usr/bin/env bash
# Runs every Go test with the race detector: kbgp's packages, then upstream's tests of
# the GoBGP packages kbgp patches (third_party/gobgp is a module of its own, which
# ./... does not reach; hack/gobgp/rebuild.sh carries those tests into it).
set -euo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
# test/cluster brings a whole cluster up (several minutes): 30 minutes per package.
$go test -race -count=1 -timeout 30m ./...
(cd third_party/gobgp && $go test -race -count=1 -timeout 30m ./...)
