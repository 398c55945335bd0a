#!/usr/bin/env bash
# Runs every test: unit tests (virtual time) and integration tests against a real kube-apiserver.
# Set-up is included: it builds the local control plane once into ~/.cache/elector (a no-op when
# it is already built) and installs the Debian packages that the network tests need.
set -euo pipefail
cd "$(dirname "$0")"

if [ -x testenv/build.sh ]; then
  echo "== the path of a machine without Go: testenv/go.sh fetches the pinned toolchain (cached)"
  fetched_go="$(ELECTOR_GO_FETCH=1 bash testenv/go.sh | tail -n 1)"
  "$fetched_go" version
  echo "== local control plane (built once, cached in ${ELECTOR_CACHE_DIR:-$HOME/.cache/elector})"
  ELECTOR_APISERVER_BIN="$(bash testenv/build.sh | tail -n 1)"
  export ELECTOR_APISERVER_BIN
  echo "== control plane smoke test (storage, 409, RBAC, CRD, TokenRequest, restart)"
  bash testenv/smoke.sh
  echo "== helm for the chart check (built once from its Go module, cached)"
  bash testenv/build-helm.sh | tail -n 1
fi
if [ -x dhcp-agent-example/scripts/install-dhcp-client.sh ]; then
  echo "== DHCP client for the end-to-end tests"
  bash dhcp-agent-example/scripts/install-dhcp-client.sh
fi

echo "== Maven: unit and integration tests"
mkdir -p target
./mvnw -B -ntp verify "$@" 2>&1 | tee target/maven-verify.log

echo "== coverage of the published modules (unit and integration tests; a report, not a gate)"
bash checks/coverage-summary.sh

echo "== release set: jar, sources, javadoc and pom of each published module, with the licence"
bash checks/release-check.sh
echo "== a consumer outside the build: examples/hello-leader on the installed artifacts"
bash examples/hello-leader/ci.sh
bash examples/josdk-fabric8-7/ci.sh
bash examples/josdk-operator/ci.sh
bash examples/qosdk-operator/ci.sh
bash examples/quarkus-leader/ci.sh
bash examples/spring-boot-leader/ci.sh
SPRING_BOOT_VERSION=3.5.7 bash examples/spring-boot-leader/ci.sh
echo "== the newcomer's path: docs/getting-started.md's commands on a fresh clone, timed"
bash checks/newcomer-path.sh
echo "== the install paths: each documented release/install.sh command on a fresh clone, and a consumer on it"
bash checks/install-paths.sh

bash checks/test-summary.sh target/maven-verify.log release-check=pass hello-leader=pass \
  josdk-fabric8-7=pass josdk-operator=pass qosdk-operator=pass quarkus-leader=pass spring-boot-leader=pass spring-boot-leader-boot-3.5=pass newcomer-path=pass install-paths=pass
