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
#        hack/test-deps.sh --lab      # what `kbgp-lab` needs: etcd-server and kube-apiserver
#        hack/test-deps.sh --cluster  # what `make cluster` needs (the same as make test)
set -euo pipefail

K8S_VERSION="${KBGP_K8S_VERSION:-v1.34.4}"
CACHE_DIR="${KBGP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kbgp}"
ASSETS_DIR="$CACHE_DIR/envtest-$K8S_VERSION"
# tcpdump: the benchmarks time UPDATEs from a packet capture (bench/capture_test.go).
# containerd, runc and conntrack: the nodes of test/cluster (make cluster).
APT_PACKAGES=(frr bird2 gobgpd exabgp etcd-server socat iproute2 iptables containernetworking-plugins tcpdump containerd runc conntrack
	libmaxminddb0 libmariadb3 librabbitmq4 libzmq5 librdkafka1)

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

# main_go prints the main package of one Kubernetes binary.
main_go() {
	case "$1" in
	kube-apiserver) echo 'package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }' ;;
	kube-controller-manager) echo 'package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }' ;;
	kube-scheduler) echo 'package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() { os.Exit(cli.Run(app.NewSchedulerCommand())) }' ;;
	kube-proxy) echo 'package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-proxy/app"
)

func main() { os.Exit(cli.Run(app.NewProxyCommand())) }' ;;
	kubelet) echo 'package main

import (
	"context"
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kubelet/app"
)

func main() { os.Exit(cli.Run(app.NewKubeletCommand(context.Background()))) }' ;;
	kubectl) echo 'package main

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
}' ;;
	esac
}

# build_k8s_binaries builds the Kubernetes binaries named as arguments that are not yet
# cached, all in one `go build` so the packages they share compile once, from a
# throw-away module that requires k8s.io/kubernetes and replaces every ./staging module
# with its published k8s.io/<name> v0.Y.Z twin.
build_k8s_binaries() {
	local missing=() b
	for b in "$@"; do
		[ -x "$ASSETS_DIR/$b" ] || missing+=("$b")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		log "Kubernetes binaries cached in $ASSETS_DIR"
		return
	fi
	local start work staging_version gomod
	start=$(date +%s)
	staging_version="v0${K8S_VERSION#v1}"
	work="$(mktemp -d)"
	# A RETURN trap stays set after the function returns; it clears itself so it does not
	# fire again (with $work unset) when the caller returns.
	trap 'rm -rf -- "${work:-}"; trap - RETURN' RETURN
	mkdir -p "$ASSETS_DIR" "$work/out"
	log "building ${missing[*]} $K8S_VERSION in one go build (first time: several minutes)"
	(
		cd "$work"
		go mod init kbgp.io/envtest-assets >/dev/null 2>&1
		gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
		{
			echo "require k8s.io/kubernetes $K8S_VERSION"
			grep -E '^\s+k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" |
				awk -v v="$staging_version" '{print "replace " $1 " => " $1 " " v}'
		} >>go.mod
		for b in "${missing[@]}"; do
			mkdir -p "$b"
			main_go "$b" >"$b/main.go"
		done
		GOFLAGS=-mod=mod go mod tidy >&2
		# The version the binaries report (kubectl version, the Nodes' kubeletVersion);
		# without it they say v0.0.0-master.
		CGO_ENABLED=0 go build -trimpath -ldflags="-s -X k8s.io/component-base/version.gitVersion=$K8S_VERSION" -o out/ $(printf './%s ' "${missing[@]}") >&2
		for b in "${missing[@]}"; do
			mv "out/$b" "$ASSETS_DIR/$b"
		done
	)
	log "built ${missing[*]} in $(($(date +%s) - start))s"
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

# unpack_deb PACKAGE FILE unpacks a Debian package into the cache, not onto the machine,
# unless FILE is there already. The e2e BMP test runs pmacct's collector, pmbmpd, and
# installing pmacct would enable (and on systemd machines start) its traffic
# accounting daemons; the alert test runs Prometheus's promtool, and installing
# prometheus would start a Prometheus server. pmacct's libraries are in APT_PACKAGES.
unpack_deb() {
	local pkg="$1" file="$2"
	local dir="$CACHE_DIR/$pkg"
	[ -x "$dir/$file" ] && return
	local tmp
	tmp="$(mktemp -d)"
	(cd "$tmp" && apt-get download "$pkg" >&2) || { rm -rf "$tmp"; log "apt-get download $pkg failed"; exit 1; }
	mkdir -p "$dir"
	dpkg -x "$tmp/${pkg}"_*.deb "$dir"
	rm -rf "$tmp"
	log "$file unpacked into $dir"
}

main() {
	# make test runs test/cluster, so it needs every binary a cluster node runs.
	local binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy)
	case "${1:-}" in
	--no-apt) ;;
	--cluster) install_packages ;;
	--lab)
		# kbgp-lab runs only the API server (envtest) and etcd.
		APT_PACKAGES=(etcd-server)
		binaries=(kube-apiserver)
		install_packages
		;;
	*)
		install_packages
		unpack_deb pmacct usr/sbin/pmbmpd
		unpack_deb prometheus usr/bin/promtool
		;;
	esac
	build_k8s_binaries "${binaries[@]}"
	link_etcd
	echo "$ASSETS_DIR"
}

main "$@"
