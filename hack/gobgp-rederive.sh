#!/usr/bin/env bash
# Re-derives third_party/gobgp from its sources and compares the result with the tree:
# GoBGP's published module (from the Go module proxy, at the version named in the
# heading of third_party/gobgp/README.md), the packages kbgp
# builds (`go list -deps ./...`, every .go file but tests, plus LICENSE, go.mod and
# go.sum), then kbgp's patches, one commit each: the commits after the pristine copy
# that touch third_party/gobgp, applied in order (their changes to README.md, kbgp's
# own file, aside).
#
#   hack/gobgp-rederive.sh            re-derive and compare; exit 1 on a difference
#   hack/gobgp-rederive.sh -w         re-derive and write the result over the tree
#   GOBGP_VERSION=v4.9.0 hack/...     start from another release (an upgrade: the
#                                     patches must still apply)
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
copy=third_party/gobgp
write=false
[ "${1:-}" = "-w" ] && write=true

version=${GOBGP_VERSION:-$(sed -n '1s/^# GoBGP \(v[0-9.]*\),.*/\1/p' "$copy/README.md")}
[ -n "$version" ] || { echo "no GoBGP version in $copy/README.md's heading" >&2; exit 2; }
module=github.com/osrg/gobgp/v4

# The pristine copy is the commit that added the copy's LICENSE; the patches are the
# later commits that change the copy.
pristine=$(git log --format=%H --diff-filter=A -- "$copy/LICENSE" | tail -n 1)
patches=$(git log --reverse --format=%H "$pristine..HEAD" -- "$copy")

src=$(cd /tmp && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "go mod download $module@$version gave no directory" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for pkg in $(go list -deps ./... | grep "^$module\(/\|$\)" | sort -u); do
	dir=${pkg#"$module"}
	dir=${dir#/}
	mkdir -p "$work/$dir"
	for f in "$src/$dir"/*.go; do
		case $f in *_test.go) continue ;; esac
		cp "$f" "$work/$dir/"
	done
done
cp "$src/LICENSE" "$src/go.mod" "$src/go.sum" "$work/"
chmod -R u+w "$work"

for c in $patches; do
	git diff --relative="$copy" "$c^" "$c" -- "$copy" ":(exclude)$copy/README.md" >"$work.patch"
	[ -s "$work.patch" ] || continue # README.md only
	if ! (cd "$work" && git apply --whitespace=nowarn "$work.patch"); then
		echo "patch $(git log -1 --format='%h %s' "$c") does not apply to GoBGP $version" >&2
		rm -f "$work.patch"
		exit 1
	fi
	echo "applied $(git log -1 --format='%h %s' "$c" | cut -c1-100)"
done
rm -f "$work.patch"

if $write; then
	find "$copy" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
	cp -R "$work"/. "$copy"/
	echo "wrote GoBGP $version and its patch commits to $copy"
	exit 0
fi
if ! diff -r -q -x README.md "$work" "$copy"; then
	echo "$copy differs from GoBGP $version with its patches (see above)" >&2
	exit 1
fi
echo "$copy is GoBGP $version ($(find "$work" -name '*.go' | wc -l) files) with its patch commits"
