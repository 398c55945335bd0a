#!/usr/bin/env bash
# Builds cmd/elector-apiserver once into a cache directory; a no-op afterwards.
# Progress goes to stderr; the last line of stdout is the absolute binary path.
#
#   ELECTOR_CACHE_DIR  cache root (default $HOME/.cache/elector)
#   GOMODCACHE/GOCACHE are the Go defaults unless set; keep them between runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}"
bin_dir="$cache/bin"
link="$bin_dir/elector-apiserver"

# The Go on PATH when it is new enough, else the pinned toolchain from the Go module proxy (go.sh).
go_bin="$(bash "$here/go.sh" | tail -n 1)"
export PATH="$(dirname "$go_bin"):$PATH" GOTOOLCHAIN=local

# The key covers everything that changes the binary: sources, dependency
# pins, this script (build flags) and the Go toolchain.
key="$(
  cd "$here"
  {
    go version
    find . -name '*.go' -not -path './.*' -not -path './cmd/elector-gocandidate/*' | LC_ALL=C sort | xargs sha256sum
    sha256sum go.mod go.sum build.sh
  } | sha256sum | cut -c1-12
)"
binary="$bin_dir/elector-apiserver-$key"

if [[ -x "$binary" ]]; then
  [[ "$(readlink "$link" 2>/dev/null)" == "${binary##*/}" ]] || ln -sfn "${binary##*/}" "$link"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
# Serialise concurrent builds (e.g. parallel test modules) where flock exists.
if command -v flock >/dev/null; then
  exec 9>"$bin_dir/.build.lock"
  flock 9
  if [[ -x "$binary" ]]; then
    echo "$binary"
    exit 0
  fi
fi

cd "$here"
export GOWORK=off CGO_ENABLED=0
k8s_version="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)" # e.g. v1.37.2
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.gitCommit="
done

echo "build.sh: building elector-apiserver (kube-apiserver $k8s_version) into $binary" >&2
echo "build.sh: a cold build takes about 6 minutes on 2 cores; later runs are instant" >&2
start=$SECONDS
tmp="$binary.tmp.$$"
trap 'rm -f "$tmp"' EXIT
go build -trimpath -buildvcs=false -tags selinux,notest -ldflags "$ldflags" -o "$tmp" ./cmd/elector-apiserver
mv -f "$tmp" "$binary"
ln -sfn "${binary##*/}" "$link"
# Older keyed binaries are dead weight (about 100 MB each).
find "$bin_dir" -maxdepth 1 -name 'elector-apiserver-*' -not -name "${binary##*/}" -delete
echo "build.sh: built in $((SECONDS - start)) s" >&2
echo "$binary"
