#!/usr/bin/env bash
# Builds the helm CLI (helm.sh/helm/v4, the version below) once into a cache directory from its Go
# module; a no-op afterwards. Progress goes to stderr; the last line of stdout is the binary path.
#
#   ELECTOR_CACHE_DIR  cache root (default $HOME/.cache/elector)
#   GOMODCACHE/GOCACHE are the Go defaults unless set; keep them between runs.
set -euo pipefail

helm_version="v4.3.2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}"
bin_dir="$cache/bin"
link="$bin_dir/helm"

# The Go on PATH when it is new enough, else the pinned toolchain (go.sh).
go_bin="$(bash "$here/go.sh" | tail -n 1)"
export PATH="$(dirname "$go_bin"):$PATH" GOTOOLCHAIN=local

# The script's content, not its path: every checkout of one version shares one binary.
key="$({ go version; echo "$helm_version"; sha256sum < "$here/build-helm.sh"; } | sha256sum | cut -c1-12)"
binary="$bin_dir/helm-$key"

if [[ -x "$binary" ]]; then
  [[ "$(readlink "$link" 2>/dev/null)" == "${binary##*/}" ]] || ln -sfn "${binary##*/}" "$link"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
if command -v flock >/dev/null; then
  exec 9>"$bin_dir/.build-helm.lock"
  flock 9
  if [[ -x "$binary" ]]; then
    echo "$binary"
    exit 0
  fi
fi

echo "build-helm.sh: building helm $helm_version into $binary (a few minutes cold)" >&2
start=$SECONDS
work="$(mktemp -d)"
tmp="$binary.tmp.$$"
trap 'rm -rf "$work" "$tmp"' EXIT
# `go install pkg@version` would ignore a cache directory of our own; a throwaway module pins the
# version and builds the binary where we want it.
(
  cd "$work"
  export GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod
  go mod init elector.dev/helm-build >/dev/null 2>&1
  go get "helm.sh/helm/v4@$helm_version" >&2
  go build -trimpath -buildvcs=false -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$helm_version" \
    -o "$tmp" helm.sh/helm/v4/cmd/helm
)
mv -f "$tmp" "$binary"
ln -sfn "${binary##*/}" "$link"
find "$bin_dir" -maxdepth 1 -name 'helm-*' -not -name "${binary##*/}" -not -name '*.lock' -delete
echo "build-helm.sh: built in $((SECONDS - start)) s" >&2
echo "$binary"
