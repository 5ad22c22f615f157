#!/usr/bin/env bash
# verify-generated.sh regenerates deepcopy code and CRDs and fails when the tree held
# stale copies. It compares against a snapshot rather than git, so it works the same
# in a dirty working tree and on a clean CI checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

GENERATED=(api/v1alpha1/zz_generated.deepcopy.go config/crd/bases config/rbac/operator config/rbac/agent)
snapshot="$(mktemp -d)"
trap 'rm -rf "$snapshot"' EXIT
for p in "${GENERATED[@]}"; do
	mkdir -p "$snapshot/$(dirname "$p")"
	cp -r "$p" "$snapshot/$p"
done

make --no-print-directory generate manifests >/dev/null

status=0
for p in "${GENERATED[@]}"; do
	if ! diff -ru "$snapshot/$p" "$p"; then
		status=1
	fi
done
if [ "$status" -ne 0 ]; then
	echo "verify: generated files were stale; they are regenerated now: review and commit them" >&2
	exit 1
fi
echo "verify: generated files are up to date" >&2
