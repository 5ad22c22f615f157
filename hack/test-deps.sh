#!/usr/bin/env bash
# test-deps.sh installs what kbgp's tests need and prints the envtest assets directory.
#
# It is idempotent: Debian packages are installed only when missing, and the
# kube-apiserver / kube-controller-manager / kubectl binaries are built once from
# the Go module proxy (setup-envtest downloads are refused on this network) and
# cached outside the repository. etcd comes from Debian's etcd-server package.
#
# Usage: hack/test-deps.sh            # everything, last line of stdout = assets dir
#        hack/test-deps.sh --no-apt   # only the envtest assets
#        hack/test-deps.sh --lab      # what `kbgp lab` needs: etcd-server and the assets
set -euo pipefail

K8S_VERSION="${KBGP_K8S_VERSION:-v1.34.4}"
CACHE_DIR="${KBGP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kbgp}"
ASSETS_DIR="$CACHE_DIR/envtest-$K8S_VERSION"
# tcpdump: the benchmarks time UPDATEs from a packet capture (bench/capture_test.go).
APT_PACKAGES=(frr bird2 gobgpd exabgp etcd-server socat iproute2 iptables containernetworking-plugins tcpdump)

log() { echo "test-deps: $*" >&2; }

install_packages() {
	local missing=()
	for p in "${APT_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		log "debian packages present"
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		log "missing packages ${missing[*]} and not root: install them with apt-get"
		exit 1
	fi
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || log "apt-get update failed; trying the install anyway"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# build_k8s_binaries builds the control-plane binaries from a throw-away module that
# requires k8s.io/kubernetes and replaces every ./staging module with its
# published k8s.io/<name> v0.Y.Z twin.
build_k8s_binaries() {
	if [ -x "$ASSETS_DIR/kube-apiserver" ] && [ -x "$ASSETS_DIR/kube-controller-manager" ] && [ -x "$ASSETS_DIR/kubectl" ]; then
		log "envtest assets cached in $ASSETS_DIR"
		return
	fi
	local start work staging_version gomod
	start=$(date +%s)
	staging_version="v0${K8S_VERSION#v1}"
	work="$(mktemp -d)"
	# A RETURN trap stays set after the function returns; it clears itself so it does not
	# fire again (with $work unset) when the caller returns.
	trap 'rm -rf -- "${work:-}"; trap - RETURN' RETURN
	mkdir -p "$ASSETS_DIR" "$work/kube-apiserver" "$work/kube-controller-manager" "$work/kubectl"
	log "building kube-apiserver, kube-controller-manager and kubectl $K8S_VERSION (first time: several minutes)"
	(
		cd "$work"
		go mod init kbgp.io/envtest-assets >/dev/null 2>&1
		gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
		{
			echo "require k8s.io/kubernetes $K8S_VERSION"
			grep -E '^\s+k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" |
				awk -v v="$staging_version" '{print "replace " $1 " => " $1 " " v}'
		} >>go.mod
		cat >kube-apiserver/main.go <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
GO
		cat >kube-controller-manager/main.go <<'GO'
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }
GO
		cat >kubectl/main.go <<'GO'
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
GO
		GOFLAGS=-mod=mod go mod tidy >&2
		for b in kube-apiserver kube-controller-manager kubectl; do
			CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$ASSETS_DIR/$b.tmp" "./$b" >&2
			mv "$ASSETS_DIR/$b.tmp" "$ASSETS_DIR/$b"
		done
	)
	log "built envtest assets in $(($(date +%s) - start))s"
}

link_etcd() {
	local etcd
	etcd="$(command -v etcd || true)"
	[ -n "$etcd" ] || etcd=/usr/bin/etcd
	if [ ! -x "$etcd" ]; then
		log "etcd not found: install Debian's etcd-server"
		exit 1
	fi
	ln -sf "$etcd" "$ASSETS_DIR/etcd"
}

main() {
	case "${1:-}" in
	--no-apt) ;;
	--lab)
		APT_PACKAGES=(etcd-server)
		install_packages
		;;
	*) install_packages ;;
	esac
	build_k8s_binaries
	link_etcd
	echo "$ASSETS_DIR"
}

main "$@"
