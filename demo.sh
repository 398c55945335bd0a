#!/usr/bin/env bash
# The demo, set-up included: builds the local control plane once (cached in ~/.cache/elector),
# installs the DHCP client and network tools, builds the demo, then runs it:
#   ./demo.sh                     on the local control plane (kube-apiserver + etcd, no Docker)
#   ./demo.sh --kubeconfig PATH   against a real cluster instead
#   ./demo.sh --quick             the shortened mode CI runs
# It runs the IPPool controller (2 replicas) and the DHCP agents it deploys as local processes, a
# VM with a real DHCP client in a network namespace, kills the leading agent, and prints a live
# timeline and a summary. The in-memory election demo (one JVM, no API server) is
#   java -cp 'examples/demo/target/classes:examples/demo/target/lib/*' dev.elector.demo.InMemoryDemo
set -euo pipefail
cd "$(dirname "$0")"

if [[ " $* " != *" --kubeconfig "* ]]; then
  echo "== local control plane (built once, cached in ${ELECTOR_CACHE_DIR:-$HOME/.cache/elector})"
  ELECTOR_APISERVER_BIN="$(bash testenv/build.sh | tail -n 1)"
  export ELECTOR_APISERVER_BIN
fi
echo "== DHCP client and network tools"
bash dhcp-agent-example/scripts/install-dhcp-client.sh \
  || echo "(could not install them; the demo says what it does instead of a real DHCP exchange)"
echo "== building the demo"
./mvnw -q -B -ntp package -DskipTests -pl examples/demo -am
echo "== running"
exec java -cp "examples/demo/target/classes:examples/demo/target/lib/*" dev.elector.demo.Demo "$@"
