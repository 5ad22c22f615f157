#!/usr/bin/env bash
# cluster.sh up|down: `make cluster` for scripts (make cluster-up / cluster-down).
#
# up starts bin/kbgp-cluster in the background (its own session, log in the state
# directory), waits until the cluster is ready and prints four shell-sourceable lines:
# KUBECONFIG, ROUTER_NETNS, ROUTER_VTYSH and CLIENT_NETNS. down sends it SIGTERM by
# its recorded PID and waits: it removes every process, namespace, mount and cgroup
# it made, as Ctrl-C does for make cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
state="${KBGP_CLUSTER_STATE:-/tmp/kbgp-cluster-state}"

# running prints the PID of the cluster this state directory records, if it runs.
running() {
	local pid
	pid="$(cat "$state/pid" 2>/dev/null || true)"
	[ -n "$pid" ] && grep -qa kbgp-cluster "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

case "${1:-}" in
up)
	if pid="$(running)"; then
		echo "cluster-up: already running (pid $pid)" >&2
		cat "$state/env"
		exit 0
	fi
	mkdir -p "$state"
	rm -f "$state/env"
	assets="$(hack/test-deps.sh --cluster)"
	go build -o bin/kbgp-cluster ./test/cluster/cmd/kbgp-cluster
	setsid bin/kbgp-cluster --repo . --assets "$assets" --ready-file "$state/env" \
		>"$state/cluster.log" 2>&1 </dev/null &
	echo $! >"$state/pid"
	echo "cluster-up: starting (pid $!, log $state/cluster.log)" >&2
	while [ ! -s "$state/env" ]; do
		if ! running >/dev/null; then
			echo "cluster-up: the cluster did not come up; its log:" >&2
			tail -n 60 "$state/cluster.log" >&2
			exit 1
		fi
		sleep 2
	done
	cat "$state/env"
	;;
down)
	if pid="$(running)"; then
		kill -TERM "$pid"
		while kill -0 "$pid" 2>/dev/null; do sleep 1; done
	fi
	rm -rf "$state"
	;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
