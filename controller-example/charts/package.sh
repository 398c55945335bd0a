#!/usr/bin/env bash
# package.sh [OUT]: the chart as a Helm repository in one folder, for a cluster without internet
# access to install from (serve the folder over HTTP, or copy it; default OUT:
# controller-example/target/chart-repo):
#   elector-vm-dhcp-controller-<version>.tgz   the packaged chart (`helm package`, after a strict lint)
#   index.yaml                                  the repository index (`helm repo index`; relative URLs)
#   images.txt                                  every image a default install runs, one per line: mirror
#                                               them into the cluster's registry and set
#                                               image.repository and agent.image.repository to it
#   SHA256SUMS                                  the three files' checksums
# helm comes from testenv/build-helm.sh (built once from its Go module), or from $HELM.
# The images themselves are not built here: see controller-example/Containerfile and
# dhcp-agent-example/Containerfile.
set -euo pipefail
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

(cd "$out" && sha256sum "elector-vm-dhcp-controller-$version.tgz" index.yaml images.txt > SHA256SUMS)
echo "package.sh: the chart repository in $out:"
(cd "$out" && ls -l --time-style=+ "elector-vm-dhcp-controller-$version.tgz" index.yaml images.txt SHA256SUMS \
  | awk '{printf "  %-40s %8d bytes\n", $NF, $5}')
echo "package.sh: images to mirror:"
sed 's/^/  /' "$out/images.txt"
