#!/usr/bin/env bash
# Runs the local control plane (a real kube-apiserver with embedded etcd, on 127.0.0.1) in the
# foreground, for trying Elector without a cluster. Builds it once (testenv/build.sh; Go is fetched
# when missing), writes its admin kubeconfig, prints the line to use it, and stops with Ctrl-C (or
# SIGTERM), deleting its data. It has no nodes: run the examples as local processes.
#
#   testenv/local-cluster.sh [--kubeconfig PATH]   (default ~/.cache/elector/local-cluster.kubeconfig)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kubeconfig="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}/local-cluster.kubeconfig"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kubeconfig) kubeconfig="$2"; shift 2 ;;
    -h | --help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "local-cluster.sh: unknown argument '$1'; use --kubeconfig PATH" >&2; exit 2 ;;
  esac
done

bin="${ELECTOR_APISERVER_BIN:-$(bash "$root/testenv/build.sh" | tail -n 1)}"
out="$(mktemp "${TMPDIR:-/tmp}/local-cluster.XXXXXX")"
"$bin" >"$out" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$out" "$kubeconfig"' EXIT
trap 'exit 0' INT TERM
until grep -q '^ELECTOR-APISERVER-READY ' "$out"; do
  kill -0 "$pid" 2>/dev/null || { echo "local-cluster.sh: the control plane did not start" >&2; exit 1; }
  sleep 0.2
done
admin="$(sed -n 's/.*"kubeconfig":"\([^"]*\)".*/\1/p' "$out")"
mkdir -p "$(dirname "$kubeconfig")"
cp "$admin" "$kubeconfig"
echo "local control plane ready ($(sed -n 's/.*"server":"\([^"]*\)".*/\1/p' "$out")); in other terminals:"
echo "export KUBECONFIG=$kubeconfig"
wait "$pid"
