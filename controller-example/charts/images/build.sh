#!/usr/bin/env bash
# images/build.sh OUT: builds the images that OUT/images.txt names (../package.sh writes it) as
# multi-architecture OCI archives in OUT, without a container engine or a registry:
#   dhcp-agent-<tag>.oci.tar, ippool-controller-<tag>.oci.tar
#       an OCI image layout in a tar: index.json names one image index (annotations
#       org.opencontainers.image.ref.name <tag> and io.containerd.image.name <image>) with one
#       manifest per architecture (IMAGE_ARCHES, default "amd64 arm64"; linux). Import with
#       skopeo copy --all oci-archive:dhcp-agent-<tag>.oci.tar docker://REGISTRY/dhcp-agent:<tag>
#   image-packages.txt
#       the Debian packages the images' files come from: architecture, package, version, and the
#       SHA-256 of the .deb
# Each image is two or three layers (files owned by root, dated at the commit's time):
#   runtime      Debian bookworm's libc6, libgcc-s1, libstdc++6, zlib1g and
#                openjdk-17-jre-headless; /etc/passwd and /etc/group with root and nonroot 65532;
#                a Java trust store made from ca-certificates' Mozilla certificates by
#                TrustStore.java; the packages' control files in /var/lib/dpkg/status.d/ for
#                scanners
#   tools        the agent's only: iproute2 and iputils-arping with their libraries (libcap2,
#                libbpf1, libelf1, libmnl0, libbsd0, libmd0)
#   application  the module's jar and its runtime dependencies, at the paths, user, ports and
#                entrypoint of its Containerfile
# The packages are not installed with dpkg (no maintainer scripts run; the image has no shell and
# no package manager): their files are unpacked, less documentation other than copyright files.
# The .deb files come with apt-get download from the build machine's Debian sources (bookworm,
# as on this project's machines), through a private apt state in target/image-build/apt that adds
# the architectures; DEB_DIR names a folder of .deb files to use instead, for a build without a
# Debian mirror. The application jars come from Maven (package and dependency:copy-dependencies of
# controller-example and dhcp-agent-example; MAVEN_ARGS passes flags such as -o), or, with
# SKIP_MAVEN=1, from their target folders as they are.
# Ends with verify.sh on the archives.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$(cd "${1:?usage: build.sh OUT (the folder holding images.txt)}" && pwd)"
arches="${IMAGE_ARCHES:-amd64 arm64}"
work="$root/controller-example/target/image-build"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}"
revision="$(git -C "$root" rev-parse HEAD)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
for tool in dpkg-deb jq tar gzip sha256sum "$java"; do
  command -v "$tool" > /dev/null || { echo "build.sh: needs $tool" >&2; exit 1; }
done
[ -s "$out/images.txt" ] || { echo "build.sh: no $out/images.txt (run ../package.sh first)" >&2; exit 1; }

runtime_packages="libc6 libgcc-s1 libstdc++6 zlib1g openjdk-17-jre-headless"
tool_packages="iproute2 iputils-arping libcap2 libbpf1 libelf1 libmnl0 libbsd0 libmd0"

rm -rf "$work/rootfs" "$work/layout" "$work/blobs"
mkdir -p "$work/rootfs" "$work/blobs"

# --- the application jars
if [ "${SKIP_MAVEN:-0}" != 1 ]; then
  echo "build.sh: building controller-example and dhcp-agent-example"
  (cd "$root" && ./mvnw -B -ntp -q -pl controller-example,dhcp-agent-example -am -DskipTests \
    package dependency:copy-dependencies -DincludeScope=runtime)
fi

# --- the Debian packages
debs="${DEB_DIR:-$work/debs}"
if [ -z "${DEB_DIR:-}" ]; then
  apt="$work/apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$debs"
  : > "$apt/status"
  aptopts=(-o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
    -o "Dir::Cache=$apt/cache" -o "APT::Architecture=$(dpkg --print-architecture)"
    -o "APT::Sandbox::User=root")
  for arch in $arches; do aptopts+=(-o "APT::Architectures::=$arch"); done
  echo "build.sh: downloading the Debian packages for $arches"
  apt-get "${aptopts[@]}" -qq update
  wanted=(ca-certificates)
  for arch in $arches; do
    for p in $runtime_packages $tool_packages; do wanted+=("$p:$arch"); done
  done
  rm -f "$debs"/*.deb
  (cd "$debs" && apt-get "${aptopts[@]}" -qq download "${wanted[@]}")
fi
deb() { # deb PACKAGE ARCH: the one .deb of PACKAGE for ARCH in $debs
  local found=("$debs/$1"_*_"$2".deb)
  [ -f "${found[0]}" ] && [ "${#found[@]}" = 1 ] \
    || { echo "build.sh: expected one $1 for $2 in $debs, found: ${found[*]}" >&2; exit 1; }
  echo "${found[0]}"
}

: > "$out/image-packages.txt"
provenance() { # provenance DEB: a line of image-packages.txt
  printf '%s %s %s sha256:%s\n' "$(dpkg-deb -f "$1" Architecture)" "$(dpkg-deb -f "$1" Package)" \
    "$(dpkg-deb -f "$1" Version)" "$(sha256sum < "$1" | cut -d' ' -f1)" >> "$out/image-packages.txt"
}
unpack() { # unpack DIR ARCH PACKAGE...: the packages' files into DIR, less documentation
  local dir="$1" arch="$2" p d
  shift 2
  mkdir -p "$dir/var/lib/dpkg/status.d"
  for p in "$@"; do
    d="$(deb "$p" "$arch")"
    dpkg-deb -x "$d" "$dir"
    dpkg-deb -f "$d" > "$dir/var/lib/dpkg/status.d/$p"
    provenance "$d"
  done
  rm -rf "$dir/usr/share/man" "$dir/usr/share/lintian" "$dir/usr/share/locale" "$dir"/usr/lib/jvm/*/man
  if [ -d "$dir/usr/share/doc" ]; then
    find "$dir/usr/share/doc" -mindepth 1 \( -type f -o -type l \) ! -name copyright -delete
    find "$dir/usr/share/doc" -mindepth 1 -type d -empty -delete
  fi
}

# layer DIR NAME: DIR as a gzip'd tar blob (owners root, times SOURCE_DATE_EPOCH, names sorted);
# sets the variables NAME_digest, NAME_diffid and NAME_size
layer() {
  local dir="$1" name="$2" tarfile="$work/blobs/$2.tar" digest
  (cd "$dir" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort \
    | tar --no-recursion -T - --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
      --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf "$tarfile")
  printf -v "${name}_diffid" 'sha256:%s' "$(sha256sum < "$tarfile" | cut -d' ' -f1)"
  gzip -n -6 "$tarfile"
  digest="$(sha256sum < "$tarfile.gz" | cut -d' ' -f1)"
  printf -v "${name}_digest" 'sha256:%s' "$digest"
  printf -v "${name}_size" '%s' "$(stat -c %s "$tarfile.gz")"
  mv "$tarfile.gz" "$work/blobs/$digest"
}
blob() { # blob FILE: FILE into the blobs; prints its descriptor's digest and size
  local digest
  digest="$(sha256sum < "$1" | cut -d' ' -f1)"
  cp "$1" "$work/blobs/$digest"
  echo "sha256:$digest $(stat -c %s "$1")"
}

# --- the trust store (the same for every architecture)
rm -rf "$work/ca" && mkdir -p "$work/ca"
dpkg-deb -x "$(deb ca-certificates all)" "$work/ca"
provenance "$(deb ca-certificates all)"
"$java" "$here/TrustStore.java" "$work/cacerts" "$work"/ca/usr/share/ca-certificates/mozilla/*.crt > /dev/null

# --- the layers of each architecture
for arch in $arches; do
  r="$work/rootfs/runtime-$arch"
  unpack "$r" "$arch" $runtime_packages
  mkdir -p "$r/etc/ssl/certs/java" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/root"
  chmod 1777 "$r/tmp"
  chmod 700 "$r/root"
  cp "$work/cacerts" "$r/etc/ssl/certs/java/cacerts"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' > "$r/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' > "$r/etc/group"
  printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' > "$r/etc/nsswitch.conf"
  layer "$r" "runtime_$arch"
  t="$work/rootfs/tools-$arch"
  unpack "$t" "$arch" $tool_packages
  layer "$t" "tools_$arch"
done
LC_ALL=C sort -u -o "$out/image-packages.txt" "$out/image-packages.txt"

# --- the application layers and the images
app_layer() { # app_layer NAME MODULE DIR: the module's jar and runtime dependencies in DIR
  local a="$work/rootfs/app-$1" jar
  jar="$(ls "$root/$2/target/$2"-*.jar | grep -v -e '-sources.jar$' -e '-javadoc.jar$' -e '-tests.jar$')"
  mkdir -p "$a/$3"
  case "$1" in
    dhcp-agent)
      mkdir -p "$a/$3/lib"
      cp "$root/$2/target/dependency/"*.jar "$jar" "$a/$3/lib/" ;;
    ippool-controller)
      mkdir -p "$a/$3/lib"
      cp "$root/$2/target/lib/"*.jar "$a/$3/lib/"
      cp "$jar" "$a/$3/controller.jar" ;;
  esac
  layer "$a" "app"
}

while read -r image; do
  [ -n "$image" ] || continue
  name="${image##*/}"
  tag="${name##*:}"
  name="${name%%:*}"
  case "$name" in
    dhcp-agent)
      module=dhcp-agent-example; dir=opt/dhcp-agent; user=""; ports='{"67/udp":{},"8080/tcp":{}}'
      entrypoint='["java","-XX:MaxRAMPercentage=75","-cp","/opt/dhcp-agent/lib/*","dev.elector.dhcp.agent.AgentMain"]' ;;
    ippool-controller)
      module=controller-example; dir=app; user="65532:65532"; ports='{"8080/tcp":{}}'
      entrypoint='["java","-XX:MaxRAMPercentage=75","-XX:-UsePerfData","-cp","/app/controller.jar:/app/lib/*","dev.elector.controller.ControllerMain"]' ;;
    *) echo "build.sh: no recipe for the image $image" >&2; exit 1 ;;
  esac
  echo "build.sh: $image ($arches)"
  app_layer "$name" "$module" "$dir"
  rm -rf "$work/layout" && mkdir -p "$work/layout/blobs/sha256"
  manifests="[]"
  for arch in $arches; do
    rd="runtime_${arch}_digest" rs="runtime_${arch}_size" ri="runtime_${arch}_diffid"
    td="tools_${arch}_digest" ts="tools_${arch}_size" ti="tools_${arch}_diffid"
    layers="$(jq -nc --arg d "${!rd}" --argjson s "${!rs}" '[{mediaType:"application/vnd.oci.image.layer.v1.tar+gzip",digest:$d,size:$s}]')"
    diffids="$(jq -nc --arg i "${!ri}" '[$i]')"
    if [ "$name" = dhcp-agent ]; then
      layers="$(jq -c --arg d "${!td}" --argjson s "${!ts}" '. + [{mediaType:"application/vnd.oci.image.layer.v1.tar+gzip",digest:$d,size:$s}]' <<< "$layers")"
      diffids="$(jq -c --arg i "${!ti}" '. + [$i]' <<< "$diffids")"
    fi
    layers="$(jq -c --arg d "$app_digest" --argjson s "$app_size" '. + [{mediaType:"application/vnd.oci.image.layer.v1.tar+gzip",digest:$d,size:$s}]' <<< "$layers")"
    diffids="$(jq -c --arg i "$app_diffid" '. + [$i]' <<< "$diffids")"
    jq -nc --arg arch "$arch" --arg created "$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)" \
      --arg user "$user" --arg dir "/$dir" --argjson ports "$ports" --argjson entrypoint "$entrypoint" \
      --argjson diffids "$diffids" --arg version "$tag" --arg revision "$revision" --arg title "$name" \
      '{created:$created,architecture:$arch,os:"linux",
        config:({Env:["PATH=/usr/lib/jvm/java-17-openjdk-\($arch)/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                      "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-\($arch)"],
                 Entrypoint:$entrypoint,WorkingDir:$dir,ExposedPorts:$ports,
                 Labels:{"org.opencontainers.image.title":$title,"org.opencontainers.image.version":$version,
                         "org.opencontainers.image.revision":$revision,
                         "org.opencontainers.image.description":"\($title), from Debian bookworm packages (image-packages.txt)"}}
                + (if $user == "" then {} else {User:$user} end)),
        rootfs:{type:"layers",diff_ids:$diffids}}' > "$work/config.json"
    read -r cd cs <<< "$(blob "$work/config.json")"
    jq -nc --arg cd "$cd" --argjson cs "$cs" --argjson layers "$layers" \
      '{schemaVersion:2,mediaType:"application/vnd.oci.image.manifest.v1+json",
        config:{mediaType:"application/vnd.oci.image.config.v1+json",digest:$cd,size:$cs},layers:$layers}' \
      > "$work/manifest.json"
    read -r md ms <<< "$(blob "$work/manifest.json")"
    manifests="$(jq -c --arg d "$md" --argjson s "$ms" --arg arch "$arch" \
      '. + [{mediaType:"application/vnd.oci.image.manifest.v1+json",digest:$d,size:$s,platform:{architecture:$arch,os:"linux"}}]' <<< "$manifests")"
    blobs=("${!rd}" "$app_digest" "$cd" "$md")
    if [ "$name" = dhcp-agent ]; then blobs+=("${!td}"); fi
    for d in "${blobs[@]}"; do
      cp "$work/blobs/${d#sha256:}" "$work/layout/blobs/sha256/"
    done
  done
  jq -nc --argjson m "$manifests" '{schemaVersion:2,mediaType:"application/vnd.oci.image.index.v1+json",manifests:$m}' > "$work/index.json"
  read -r id is <<< "$(blob "$work/index.json")"
  cp "$work/blobs/${id#sha256:}" "$work/layout/blobs/sha256/"
  jq -nc --arg d "$id" --argjson s "$is" --arg tag "$tag" --arg image "$image" \
    '{schemaVersion:2,mediaType:"application/vnd.oci.image.index.v1+json",
      manifests:[{mediaType:"application/vnd.oci.image.index.v1+json",digest:$d,size:$s,
                  annotations:{"org.opencontainers.image.ref.name":$tag,"io.containerd.image.name":$image}}]}' \
    > "$work/layout/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' > "$work/layout/oci-layout"
  (cd "$work/layout" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort \
    | tar --no-recursion -T - --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
      --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf "$out/$name-$tag.oci.tar")
done < "$out/images.txt"
rm -rf "$work/rootfs" "$work/layout" "$work/blobs"

bash "$here/verify.sh" "$out"
