#!/usr/bin/env bash
# Rebuilds third_party/gobgp from GoBGP's published module and kbgp's patch series,
# and compares it with the tree byte for byte (`make verify` runs it).
#
# - version: the one kbgp's go.mod requires (github.com/osrg/gobgp/v4); the replace
#   directive points that requirement at the copy.
# - packages: the GoBGP packages kbgp builds (`go list -deps ./...` against the
#   published module), their .go files without tests, plus LICENSE, go.mod and go.sum;
#   for the packages a patch changes, upstream's tests as well (hack/go-test.sh runs
#   them), with the files those tests read: their testdata, and the configuration
#   reference pkg/config/oc's tests read.
# - patches: hack/gobgp/patches/*.patch, applied in the order of their numbers.
#
#   hack/gobgp/rebuild.sh       rebuild and compare; exit 1 on a difference
#   hack/gobgp/rebuild.sh -w    rebuild and write the result over third_party/gobgp
#
# An upgrade: `go mod edit -require=github.com/osrg/gobgp/v4@vX.Y.Z`, then -w (every
# patch must still apply).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

copy=third_party/gobgp
patches=hack/gobgp/patches
module=github.com/osrg/gobgp/v4
version=$(go list -m -f '{{.Version}}' "$module")
src=$(cd /tmp && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "go mod download $module@$version gave no directory" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work" "$work".*' EXIT
# The packages kbgp reaches in the published module, not in the copy (which may be
# broken or gone): listed with a go.mod that has no replace directive.
cp go.mod "$work.mod"
cp go.sum "$work.sum"
go mod edit -modfile="$work.mod" -dropreplace="$module"
pkgs=$(go list -modfile="$work.mod" -mod=mod -deps ./... | sed -n "s|^$module\(/\)\{0,1\}||p" | sort -u)
tested=$(sed -n 's|^diff --git a/\(.*\)/[^/]*\.go .*|\1|p' "$patches"/*.patch | sort -u)
for pkg in $pkgs; do
	mkdir -p "$work/$pkg"
	for f in "$src/$pkg"/*.go; do
		case $f in *_test.go) grep -qx "$pkg" <<<"$tested" || continue ;; esac
		cp "$f" "$work/$pkg/"
	done
	# The files upstream's tests of a patched package read (pkg/packet/bgp's
	# testdata: messages of bad lengths).
	if [ -d "$src/$pkg/testdata" ] && grep -qx "$pkg" <<<"$tested"; then
		cp -R "$src/$pkg/testdata" "$work/$pkg/"
	fi
done
cp "$src/LICENSE" "$src/go.mod" "$src/go.sum" "$work/"
# The one document upstream's tests of pkg/config/oc read (the configuration
# reference, whose examples they parse), there when those tests are.
if grep -qx pkg/config/oc <<<"$tested"; then
	mkdir -p "$work/docs/sources"
	cp "$src/docs/sources/configuration.md" "$work/docs/sources/"
fi
chmod -R u+w "$work"

for p in "$patches"/*.patch; do
	(cd "$work" && git apply --whitespace=nowarn) <"$p" ||
		{ echo "$p does not apply to GoBGP $version" >&2; exit 1; }
done

if [ "${1:-}" = "-w" ]; then
	find "$copy" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
	cp -R "$work"/. "$copy"/
	echo "wrote GoBGP $version with $(ls "$patches" | wc -l) patches to $copy"
	exit 0
fi
if ! diff -r -x README.md "$work" "$copy" >"$work.diff"; then
	head -n 40 "$work.diff" >&2
	echo "$copy differs from GoBGP $version with hack/gobgp/patches: fix the patch series," \
		"then hack/gobgp/rebuild.sh -w" >&2
	exit 1
fi
echo "$copy is GoBGP $version with $(ls "$patches" | wc -l) patches"
