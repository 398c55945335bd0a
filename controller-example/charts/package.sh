#!/usr/bin/env bash
# package.sh [--images] [OUT]: the chart as a Helm repository in one folder, for a cluster without
# internet access to install from (serve the folder over HTTP, or copy it; default OUT:
# controller-example/target/chart-repo):
#   elector-vm-dhcp-controller-<version>.tgz   the packaged chart (`helm package`, after a strict lint)
#   index.yaml                                  the repository index (`helm repo index`; relative URLs)
#   images.txt                                  every image a default install runs, one per line: mirror
#                                               them into the cluster's registry and set
#                                               image.repository and agent.image.repository to it
#   SHA256SUMS                                  the files' checksums
# With --images, also the images of images.txt, built and checked by images/build.sh (see there:
# Debian packages, Maven, root for the checks; a few minutes):
#   dhcp-agent-<tag>.oci.tar, ippool-controller-<tag>.oci.tar
#                                               multi-architecture OCI archives (linux/amd64 and
#                                               linux/arm64) to import into the cluster's registry
#   image-packages.txt                          the Debian packages the images are made of
# helm comes from testenv/build-helm.sh (built once from its Go module), or from $HELM.
# Without --images, the images come from controller-example/Containerfile and
# dhcp-agent-example/Containerfile, built where a registry is reachable.
set -euo pipefail
images=0
if [ "${1:-}" = --images ]; then
  images=1
  shift
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
chart="$here/elector-vm-dhcp-controller"
out="${1:-$root/controller-example/target/chart-repo}"
helm="${HELM:-$(bash "$root/testenv/build-helm.sh" | tail -n 1)}"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
"$helm" lint --strict "$chart" > /dev/null
version="$(sed -n 's/^version: *//p' "$chart/Chart.yaml" | tr -d '"')"
rm -f "$out/elector-vm-dhcp-controller-$version.tgz"
"$helm" package "$chart" --destination "$out" > /dev/null
"$helm" repo index "$out"

# The images of a default render: the controller's (its Deployment and the uninstall hook's Job)
# and the agents' (the controller renders their Deployments with --agent-image).
"$helm" template images "$out/elector-vm-dhcp-controller-$version.tgz" --namespace harvester-system \
  | sed -n -e 's/^ *image: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' -e 's/^ *- --agent-image=\(.*\)$/\1/p' \
  | sort -u > "$out/images.txt"
if [ "$(wc -l < "$out/images.txt")" -lt 2 ]; then
  echo "package.sh: found $(wc -l < "$out/images.txt") image(s) in the default render, expected the controller's and the agent's" >&2
  exit 1
fi

files=("elector-vm-dhcp-controller-$version.tgz" index.yaml images.txt)
rm -f "$out"/*.oci.tar "$out/image-packages.txt"
if [ "$images" = 1 ]; then
  bash "$here/images/build.sh" "$out"
  files+=(image-packages.txt)
  while read -r image; do
    name="${image##*/}"
    files+=("${name%%:*}-${name##*:}.oci.tar")
  done < "$out/images.txt"
fi
(cd "$out" && sha256sum "${files[@]}" > SHA256SUMS)
echo "package.sh: the chart repository in $out:"
(cd "$out" && ls -l --time-style=+ "${files[@]}" SHA256SUMS \
  | awk '{printf "  %-40s %10d bytes\n", $NF, $5}')
echo "package.sh: images to mirror:"
sed 's/^/  /' "$out/images.txt"
