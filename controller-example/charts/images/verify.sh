#!/usr/bin/env bash
# images/verify.sh OUT: checks each OUT/*.oci.tar as a runtime would see it, and fails on the first
# broken one. For every archive: the layout's index.json names one image index; every blob's
# SHA-256 and size match their descriptors, and every layer's uncompressed SHA-256 matches the
# config's diff_ids. For every architecture of the index: its layers are unpacked in order into a
# temporary root file system, where (chroot, a private PID namespace and /proc; an architecture
# other than the machine's runs through qemu-<arch>-static when the machine has it, and is reported
# as not run otherwise)
#   - the image's entrypoint, run as the image's user with the image's environment, prints the
#     version (--version) and the usage (--help) with status 0;
#   - the JRE's keytool finds the trust store's certificates;
#   - the agent's image only: ip -V and arping -V run, and in a new network namespace the commands
#     the agent runs when its term starts and ends (ip addr replace ADDRESS dev NIC, arping -U -c 1
#     -I NIC IP, ip addr del ADDRESS dev NIC) succeed on a veth pair.
# Then, where skopeo and docker-registry (Debian's packages) are installed, each archive is imported
# with skopeo copy --all into a registry on 127.0.0.1 and its index read back.
# Needs root (chroot, unshare), jq, tar, gzip, sha256sum.
set -euo pipefail
out="$(cd "${1:?usage: verify.sh OUT}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
host_arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
fail() { echo "verify.sh: $*" >&2; exit 1; }
checked=0 skipped=0

shopt -s nullglob
archives=("$out"/*.oci.tar)
[ "${#archives[@]}" -gt 0 ] || fail "no .oci.tar in $out"
for archive in "${archives[@]}"; do
  name="$(basename "$archive" .oci.tar)"
  layout="$tmp/$name"
  mkdir -p "$layout"
  tar -xf "$archive" -C "$layout"
  [ "$(jq -r .imageLayoutVersion "$layout/oci-layout")" = 1.0.0 ] || fail "$name: no oci-layout 1.0.0"
  blob() { echo "$layout/blobs/sha256/${1#sha256:}"; }
  check() { # check DIGEST SIZE: the blob exists with that digest and size
    local f
    f="$(blob "$1")"
    [ -f "$f" ] || fail "$name: missing blob $1"
    [ "sha256:$(sha256sum < "$f" | cut -d' ' -f1)" = "$1" ] || fail "$name: blob $1 has another digest"
    [ "$(stat -c %s "$f")" = "$2" ] || fail "$name: blob $1 is not $2 bytes"
  }
  [ "$(jq '.manifests | length' "$layout/index.json")" = 1 ] || fail "$name: index.json names more than one image"
  ref="$(jq -r '.manifests[0].annotations["io.containerd.image.name"]' "$layout/index.json")"
  index="$(jq -r '.manifests[0].digest' "$layout/index.json")"
  check "$index" "$(jq -r '.manifests[0].size' "$layout/index.json")"
  platforms=""
  while read -r manifest size arch; do
    check "$manifest" "$size"
    platforms="$platforms linux/$arch"
    m="$(blob "$manifest")"
    config="$(jq -r .config.digest "$m")"
    check "$config" "$(jq -r .config.size "$m")"
    c="$(blob "$config")"
    [ "$(jq -r .architecture "$c")/$(jq -r .os "$c")" = "$arch/linux" ] || fail "$name: $arch's config is for another platform"
    rootfs="$tmp/rootfs-$name-$arch"
    mkdir -p "$rootfs"
    i=0
    while read -r layer lsize; do
      check "$layer" "$lsize"
      [ "sha256:$(gzip -dc < "$(blob "$layer")" | sha256sum | cut -d' ' -f1)" = "$(jq -r ".rootfs.diff_ids[$i]" "$c")" ] \
        || fail "$name: $arch's layer $i does not match diff_ids[$i]"
      gzip -dc < "$(blob "$layer")" | tar -x -C "$rootfs" --numeric-owner
      i=$((i + 1))
    done < <(jq -r '.layers[] | "\(.digest) \(.size)"' "$m")
    [ "$i" = "$(jq '.rootfs.diff_ids | length' "$c")" ] || fail "$name: $arch has $i layers, its config lists another number"

    # How a command of the image runs here: natively, or through qemu-user for another architecture.
    emulator=()
    if [ "$arch" != "$host_arch" ]; then
      case "$arch" in arm64) qarch=aarch64 ;; amd64) qarch=x86_64 ;; *) qarch="$arch" ;; esac
      qemu="$(command -v "qemu-$qarch-static" || true)"
      if [ -z "$qemu" ]; then
        echo "verify.sh: $ref linux/$arch: layers and digests checked; not run (no qemu-$qarch-static here; Debian's qemu-user-static has it)"
        skipped=$((skipped + 1))
        continue
      fi
      cp "$qemu" "$rootfs/.verify-qemu"
      emulator=(/.verify-qemu)
    fi
    mapfile -t env < <(jq -r '.config.Env[]' "$c")
    user="$(jq -r '.config.User // "0:0"' "$c")"
    path="$(printf '%s\n' "${env[@]}" | sed -n 's/^PATH=//p')"
    resolve() { # resolve COMMAND: its absolute path in the image, looked up in the image's PATH
      local d
      case "$1" in /*) echo "$1"; return ;; esac
      for d in ${path//:/ }; do
        if [ -e "$rootfs$d/$1" ] || [ -L "$rootfs$d/$1" ]; then echo "$d/$1"; return; fi
      done
      fail "$name: $arch: $1 is not on the image's PATH $path"
    }
    run() { # run USER COMMAND ARG...: COMMAND in the image's root, as USER, with the image's Env
      local as="$1" cmd
      shift
      cmd="$(resolve "$1")"
      shift
      env -i "${env[@]}" unshare --mount --pid --fork --mount-proc="$rootfs/proc" \
        chroot --userspec="$as" "$rootfs" "${emulator[@]}" "$cmd" "$@"
    }
    mapfile -t entrypoint < <(jq -r '.config.Entrypoint[]' "$c")
    version="$(run "$user" "${entrypoint[@]}" --version 2>&1)" || fail "$name: $arch: entrypoint --version failed: $version"
    usage="$(run "$user" "${entrypoint[@]}" --help 2>&1)" || fail "$name: $arch: entrypoint --help failed: $usage"
    grep -q -i usage <<< "$usage" || fail "$name: $arch: --help printed no usage: $usage"
    certs="$(run "$user" keytool -list -cacerts -storepass changeit 2>&1 | grep -c trustedCertEntry || true)"
    [ "$certs" -gt 100 ] || fail "$name: $arch: the trust store holds $certs certificates"
    extra=""
    if [[ "$name" == dhcp-agent-* ]]; then
      ipv="$(run 0:0 ip -V 2>/dev/null)" || fail "$name: $arch: ip -V failed"
      arpingv="$(run 0:0 arping -V 2>/dev/null | head -n 1)" || fail "$name: $arch: arping -V failed"
      # The agent's own commands on a veth pair of a network namespace made here (192.0.2.0/24,
      # TEST-NET-1: no traffic leaves the namespace).
      ip_cmd="$(resolve ip)" arping_cmd="$(resolve arping)"
      env -i "${env[@]}" unshare --net --mount --pid --fork --mount-proc="$rootfs/proc" bash -euc '
        r="$1"; shift; ip="$1"; arping="$2"; shift 2
        image() { chroot "$r" "$@"; }
        image "$@" "$ip" link add v0 type veth peer name v1
        image "$@" "$ip" link set v0 up
        image "$@" "$ip" link set v1 up
        image "$@" "$ip" addr replace 192.0.2.1/24 dev v0
        image "$@" "$arping" -U -c 1 -I v0 192.0.2.1 > /dev/null
        image "$@" "$ip" addr del 192.0.2.1/24 dev v0
        ! image "$@" "$ip" -o addr show dev v0 | grep -q 192.0.2.1
      ' verify "$rootfs" "$ip_cmd" "$arping_cmd" "${emulator[@]}" || fail "$name: $arch: the agent's ip and arping commands failed"
      extra="; $ipv; $arpingv; ip addr replace/del and arping -U on a veth pair"
    fi
    echo "verify.sh: $ref linux/$arch$([ ${#emulator[@]} -gt 0 ] && echo " (qemu-$qarch-static)"): $(head -n 1 <<< "$version"); --help; $certs certificates$extra"
    checked=$((checked + 1))
    rm -rf "$rootfs"
  done < <(jq -r '.manifests[] | "\(.digest) \(.size) \(.platform.architecture)"' "$(blob "$index")")
  echo "verify.sh: $ref: OCI index of$platforms"
done

# The import an air-gapped registry does: skopeo copy --all of each archive into a registry
# (Debian's docker-registry, listening on 127.0.0.1 only), and the index read back from it.
registry="$(command -v docker-registry || command -v registry || true)"
if command -v skopeo > /dev/null && [ -n "$registry" ]; then
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 5055)"
  printf '%s\n' 'version: 0.1' 'log: {level: error}' "storage: {filesystem: {rootdirectory: $tmp/registry}}" \
    "http: {addr: 127.0.0.1:$port}" > "$tmp/registry.yml"
  "$registry" serve "$tmp/registry.yml" > "$tmp/registry.log" 2>&1 &
  registry_pid=$!
  trap 'kill "$registry_pid" 2> /dev/null; wait "$registry_pid" 2> /dev/null || true; rm -rf "$tmp"' EXIT
  for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/v2/" > /dev/null 2>&1 && break
    sleep 0.2
  done
  for archive in "${archives[@]}"; do
    ref="$(tar -xOf "$archive" index.json | jq -r '.manifests[0].annotations["io.containerd.image.name"]')"
    dest="127.0.0.1:$port/${ref#*/}"
    skopeo copy -q --all --dest-tls-verify=false "oci-archive:$archive" "docker://$dest" \
      || fail "skopeo copy --all oci-archive:$archive docker://$dest failed"
    read_back="$(skopeo inspect --tls-verify=false --raw "docker://$dest" \
      | jq -r '[.manifests[].platform | "\(.os)/\(.architecture)"] | join(" ")')"
    [ -n "$read_back" ] || fail "$dest: no index read back"
    echo "verify.sh: skopeo copy --all into a registry: $dest serves $read_back"
  done
else
  echo "verify.sh: the import into a registry not run (needs skopeo and docker-registry)"
fi
echo "verify.sh: $checked image(s) run, $skipped not run"
