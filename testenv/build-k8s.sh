#!/usr/bin/env bash
# Builds cmd/elector-apiserver on another Kubernetes release than the one go.mod pins, for the
# support matrix; a no-op once built. Progress goes to stderr; the last line of stdout is the
# absolute binary path, as with build.sh.
#
#   ELECTOR_K8S_VERSION  the release, such as v1.36.3 (k8s.io/kubernetes; its staging modules are
#                        taken at v0.36.3). Unset or the pinned release: this runs build.sh as it is.
#   ELECTOR_CACHE_DIR    cache root (default $HOME/.cache/elector)
#
# It makes a module of its own in $ELECTOR_CACHE_DIR/k8s/<version>/src: the sources of
# cmd/elector-apiserver and build.sh, copied, and a go.mod that requires only that release, with
# one replace line per staging module of the release's own go.mod; `go mod tidy` (the module proxy
# is needed once) then adds the release's own pins, its etcd among them. build.sh builds it there,
# so the flags, the version it stamps (read from that go.mod) and the caching are build.sh's; the
# binary goes to $ELECTOR_CACHE_DIR/k8s/<version>/bin, apart from the pinned one, which build.sh
# may delete as an old key otherwise. Finally the binary's build info must name the release.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ELECTOR_CACHE_DIR:-$HOME/.cache/elector}"
pinned="$(sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$here/go.mod")"
version="${ELECTOR_K8S_VERSION:-$pinned}"
if [[ "$version" == "$pinned" ]]; then
  exec bash "$here/build.sh"
fi
if [[ ! "$version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "build-k8s.sh: ELECTOR_K8S_VERSION=$version is not a Kubernetes release such as v1.36.3" >&2
  exit 2
fi
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

go_bin="$(bash "$here/go.sh" | tail -n 1)"
export PATH="$(dirname "$go_bin"):$PATH" GOTOOLCHAIN=local GOWORK=off

work="$cache/k8s/$version"
src="$work/src"
mkdir -p "$work"
if command -v flock >/dev/null; then
  exec 8>"$work/.lock"
  flock 8
fi

# The sources, fresh at every run; build.sh's key sees any change.
rm -rf "$src/cmd"
mkdir -p "$src/cmd"
cp -r "$here/cmd/elector-apiserver" "$src/cmd/"
cp "$here/build.sh" "$here/go.sh" "$src/"

# The module, made again when this script or the Go version of testenv's go.mod changes.
go_line="$(grep -m1 '^go ' "$here/go.mod")"
stamp="$({ cat "${BASH_SOURCE[0]}"; echo "$go_line"; } | sha256sum | cut -c1-12)"
if [[ ! -s "$src/go.sum" || "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]]; then
  echo "build-k8s.sh: making the module for k8s.io/kubernetes $version in $src" >&2
  rm -f "$src/go.mod" "$src/go.sum" "$src/.stamp"
  printf 'module dev.elector/testenv\n\n%s\n' "$go_line" >"$src/go.mod"
  mod="$(cd "$src" && go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  if [[ ! -s "$mod" ]]; then
    echo "build-k8s.sh: the module proxy did not give k8s.io/kubernetes@$version" >&2
    exit 1
  fi
  modules="$(sed -n 's/^\t\(k8s.io\/[a-z0-9-]*\) => \.\/staging\/src\/k8s.io\/[a-z0-9-]*$/\1/p' "$mod")"
  {
    printf '\nrequire k8s.io/kubernetes %s\n\n' "$version"
    echo "// k8s.io/kubernetes $version maps its staging modules to ./staging; here each is its $staging tag."
    echo "replace ("
    for m in $modules; do printf '\t%s => %s %s\n' "$m" "$m" "$staging"; done
    echo ")"
  } >>"$src/go.mod"
  echo "build-k8s.sh: $(wc -w <<<"$modules") staging modules at $staging; go mod tidy" >&2
  (cd "$src" && go mod tidy)
  echo "$stamp" >"$src/.stamp"
fi

binary="$(ELECTOR_CACHE_DIR="$work" bash "$src/build.sh" | tail -n 1)"
# The build info lists the modules compiled in: the release and its apiserver must be the ones asked.
built="$(go version -m "$binary" | awk '$1 == "dep" && $2 == "k8s.io/kubernetes" { print $3 }')"
apiserver="$(go version -m "$binary" | awk '$1 == "=>" && $2 == "k8s.io/apiserver" { print $3 }')"
if [[ "$built" != "$version" || "$apiserver" != "$staging" ]]; then
  echo "build-k8s.sh: $binary holds k8s.io/kubernetes ${built:-?} and k8s.io/apiserver ${apiserver:-?}, not $version and $staging" >&2
  exit 1
fi
echo "$binary"
