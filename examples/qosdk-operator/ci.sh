#!/usr/bin/env bash
# Proves the Quarkus Operator SDK example as a user's project would run it, from outside Elector's
# build: installs the library, builds examples/qosdk-operator (a Quarkus 3.30.2 application of its
# own: the Quarkus BOM, elector-bom, quarkus-operator-sdk 7.4.0 with the JOSDK 5.2.1 and fabric8
# 7.4.0 it brings, elector-josdk and elector-fabric8) against the version just installed, and runs
# two replicas on the local control plane, each as the ServiceAccount of the example's
# deploy/rbac.yaml, with the Greeting CRD the SDK generated at build time applied. It checks that
# exactly one replica leads, holds the Lease and reconciles a Greeting (its ConfigMap NAME-greeting
# names the leader and carries its fencing token), that after a SIGKILL of the leader the other
# leads with a larger fencing token and reconciles a Greeting created meanwhile, and that after a
# SIGTERM of a leader its operator stops, the Lease is released and a new replica leads at once. It
# prints both handover times in ms, from the kill to the new leader's log line. Every wait is
# bounded and ends on a log line or an API answer.
#   examples/qosdk-operator/ci.sh      (ELECTOR_APISERVER_BIN: the control plane binary; built
#                                       with testenv/build.sh when unset)
# Maven options for every build go in MAVEN_ARGS, which Maven reads itself, e.g.
#   MAVEN_ARGS="-o -Dmaven.repo.local=/tmp/m2" examples/qosdk-operator/ci.sh
# Needs a JDK 17 and kubectl (to apply the CRD and create the Greetings as the admin).
# Prints "qosdk-operator-ci: PASS ..." or "qosdk-operator-ci: FAIL ..." and exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/qosdk-operator"
cd "$root"
# step, await, field, start_control_plane, stop_control_plane, service_account, replica_traps
source "$root/examples/ci-lib.sh"
# logged_ms, leading_token, kube, greeting, await_written and greeting_scenario
source "$root/examples/greeting-operator-ci.sh"

namespace=qosdk-operator
work="$(mktemp -d "${TMPDIR:-/tmp}/qosdk-operator-ci.XXXXXX")"
declare -A pid=() id=()
apiserver=""
status=1
started=$SECONDS
# Short timings for CI, through the example's environment (greeting.* settings): lease 4 s, renew deadline 3 s, retry 0.5 s.
lease_ms=4000

replica_traps qosdk-operator-ci

# launch I: replica I, POD_NAME qosdk-operator-I, its log (with wall-clock times) in replica-I.log.
launch() {
  env POD_NAME="qosdk-operator-$1" POD_NAMESPACE="$namespace" KUBECONFIG="$work/greeting-operator.kubeconfig" \
    GREETING_LEASE_DURATION=${lease_ms}ms GREETING_RENEW_DEADLINE=3s GREETING_RETRY_PERIOD=500ms QUARKUS_HTTP_PORT=0 \
    java -Xmx192m -XX:TieredStopAtLevel=1 -jar "$here/target/quarkus-app/quarkus-run.jar" >"$work/replica-$1.log" 2>&1 &
  pid[$1]=$!
  await "$work/replica-$1.log" ' is a candidate for ' 60 "${pid[$1]}" || fail "replica $1 did not start its elector"
  id[$1]="$(field "$work/replica-$1.log" '\(.*\) is a candidate for .*')"
}
for tool in java kubectl; do command -v "$tool" >/dev/null || fail "$tool is not on PATH"; done
version="$(elector_version)"

step "install elector $version (elector-bom, elector-josdk, elector-fabric8 and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl libraries/elector-bom,integrations/elector-josdk,libraries/elector-fabric8 -am

step "build examples/qosdk-operator against elector $version (Quarkus 3.30.2, quarkus-operator-sdk 7.4.0)"
rm -rf "$here/target"
build_started=$SECONDS
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" package
lib="$here/target/quarkus-app/lib/main"
elector_jars="$(cd "$lib" && ls dev.elector.elector-*.jar | sed 's/^dev\.elector\.//' | tr '\n' ' ')"
fabric8="$(cd "$lib" && ls io.fabric8.kubernetes-client-[0-9]*.jar | sed -E 's/.*-([0-9][^-]*)\.jar$/\1/')"
josdk="$(cd "$lib" && ls io.javaoperatorsdk.operator-framework-core-*.jar | sed -E 's/.*-([0-9][^-]*)\.jar$/\1/')"
crd="$here/target/kubernetes/greetings.examples.elector.dev-v1.yml"
[[ -f "$crd" ]] || fail "the SDK generated no Greeting CRD at ${crd#"$root"/}"
echo "   built in $((SECONDS - build_started)) s; JOSDK $josdk, fabric8 $fabric8; Elector: ${elector_jars% }"

start_control_plane
step "the Greeting CRD the SDK generated (target/kubernetes), applied as the admin"
kube apply -f "$crd" | sed 's/^/   /'
kube wait --for condition=established --timeout=30s crd/greetings.examples.elector.dev | sed 's/^/   /' \
  || fail "the Greeting CRD is not established within 30 s"
service_account "$namespace" "$here/deploy/rbac.yaml" greeting-operator "$work/greeting-operator.kubeconfig"

step "two replicas: java -jar target/quarkus-app/quarkus-run.jar (lease 4 s, renew deadline 3 s, retry 0.5 s)"
greeting_scenario

status=0
echo "qosdk-operator-ci: PASS elector $version with quarkus-operator-sdk 7.4.0 (JOSDK $josdk) on fabric8 $fabric8; one leader of two reconciles (fencing token $first_token); takeover ${kill_ms} ms after SIGKILL (lease ${lease_ms} ms), second Greeting reconciled at ${kill_reconciled_ms} ms; handover ${term_ms} ms after SIGTERM; $((SECONDS - started)) s in all"
