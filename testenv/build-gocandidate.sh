#!/usr/bin/env bash
# Builds cmd/elector-gocandidate (a client-go leader-election candidate) once into a cache
# directory, from the module graph and module cache build.sh uses; a no-op afterwards.
# Progress goes to stderr; the last line of stdout is the absolute binary path.
#
#   ELECTOR_CACHE_DIR  cache root (default $HOME/.cache/elector)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}"
bin_dir="$cache/bin"
link="$bin_dir/elector-gocandidate"

# The Go on PATH when it is new enough, else the pinned toolchain from the Go module proxy (go.sh).
go_bin="$(bash "$here/go.sh" | tail -n 1)"
export PATH="$(dirname "$go_bin"):$PATH" GOTOOLCHAIN=local

# The key covers everything that changes the binary: its sources, the dependency pins,
# this script (build flags) and the Go toolchain.
key="$(
  cd "$here"
  {
    go version
    find ./cmd/elector-gocandidate -name '*.go' | LC_ALL=C sort | xargs sha256sum
    sha256sum go.mod go.sum build-gocandidate.sh
  } | sha256sum | cut -c1-12
)"
binary="$bin_dir/elector-gocandidate-$key"

if [[ -x "$binary" ]]; then
  [[ "$(readlink "$link" 2>/dev/null)" == "${binary##*/}" ]] || ln -sfn "${binary##*/}" "$link"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
if command -v flock >/dev/null; then
  exec 9>"$bin_dir/.build-gocandidate.lock"
  flock 9
  if [[ -x "$binary" ]]; then
    echo "$binary"
    exit 0
  fi
fi

cd "$here"
export GOWORK=off CGO_ENABLED=0
echo "build-gocandidate.sh: building elector-gocandidate into $binary" >&2
start=$SECONDS
tmp="$binary.tmp.$$"
trap 'rm -f "$tmp"' EXIT
go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$tmp" ./cmd/elector-gocandidate
mv -f "$tmp" "$binary"
ln -sfn "${binary##*/}" "$link"
find "$bin_dir" -maxdepth 1 -name 'elector-gocandidate-*' -not -name "${binary##*/}" -delete
echo "build-gocandidate.sh: built in $((SECONDS - start)) s" >&2
echo "$binary"
