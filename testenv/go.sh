#!/usr/bin/env bash
# Prints the path of a Go command that can build testenv (the last line of stdout).
#
# The Go on PATH is used when it is at least the version go.mod asks for. Otherwise the pinned Go
# toolchain is fetched once from the Go module proxy (the module golang.org/toolchain, the same
# archive that `GOTOOLCHAIN` downloads), checked against the SHA-256 below, and unpacked into
# $ELECTOR_CACHE_DIR/go (default ~/.cache/elector/go). Needs curl and a JDK (its `jar` unpacks the
# archive); no root, no package manager.
#
#   GOPROXY             the module proxy (default https://proxy.golang.org; the first entry is used)
#   ELECTOR_GO_FETCH=1  fetch the pinned toolchain even when a suitable Go is on PATH
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}"
pinned=1.26.8
# SHA-256 of golang.org/toolchain@v0.0.1-go$pinned.<os>-<arch>.zip as the module proxy serves it.
declare -A sha256=(
  [linux-amd64]=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
  [linux-arm64]=02b36b6787b3ac767668f630e2998df45a3b1f9ffee08d1bf3ef6487cd658d99
)

wanted="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$here/go.mod")"
# version_at_least A B: A >= B for dotted versions
version_at_least() { [[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" == "$2" ]]; }

if [[ "${ELECTOR_GO_FETCH:-0}" != 1 ]] && command -v go >/dev/null; then
  have="$(go env GOVERSION 2>/dev/null | sed 's/^go//')"
  if [[ -n "$have" ]] && version_at_least "$have" "$wanted"; then
    command -v go
    exit 0
  fi
  echo "go.sh: the Go on PATH is $have; testenv needs $wanted or newer: fetching Go $pinned" >&2
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-amd64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  *)
    echo "go.sh: no pinned Go toolchain for $(uname -s)-$(uname -m); install Go $wanted or newer (https://go.dev/dl/) and put it on PATH" >&2
    exit 1
    ;;
esac

root="$cache/go/go$pinned.$platform"
if [[ -x "$root/bin/go" ]]; then
  echo "$root/bin/go"
  exit 0
fi
for tool in curl jar sha256sum; do
  command -v "$tool" >/dev/null || {
    echo "go.sh: '$tool' is needed to fetch Go $pinned; install it, or install Go $wanted or newer and put it on PATH" >&2
    exit 1
  }
done

mkdir -p "$cache/go"
proxy="${GOPROXY:-https://proxy.golang.org}"
proxy="${proxy%%[,|]*}"
[[ "$proxy" == direct || "$proxy" == off ]] && proxy=https://proxy.golang.org
module="golang.org/toolchain@v0.0.1-go$pinned.$platform"
url="$proxy/golang.org/toolchain/@v/v0.0.1-go$pinned.$platform.zip"
tmp="$(mktemp -d "$cache/go/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "go.sh: fetching Go $pinned ($platform, about 70 MB) from $url" >&2
curl -fsSL --retry 3 -o "$tmp/go.zip" "$url"
got="$(sha256sum "$tmp/go.zip" | cut -d' ' -f1)"
if [[ "$got" != "${sha256[$platform]}" ]]; then
  echo "go.sh: $url has SHA-256 $got, expected ${sha256[$platform]}; not using it" >&2
  exit 1
fi
(cd "$tmp" && jar xf go.zip)
# jar keeps no file modes: every file under bin/ and pkg/tool/ is a program.
find "$tmp/$module/bin" "$tmp/$module/pkg/tool" -type f -exec chmod +x {} +
rm -rf "$root"
mv "$tmp/$module" "$root"
"$root/bin/go" version >&2
echo "$root/bin/go"
