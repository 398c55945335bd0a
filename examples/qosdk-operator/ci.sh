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
# logged_ms I REGEX: the time of replica I's first log line matching REGEX, in ms since the epoch.
logged_ms() { date -d "$(grep -E -m1 "$2" "$work/replica-$1.log" | cut -d' ' -f1)" +%s%3N; }
now_ms() { date +%s%3N; }
leading_token() { field "$work/replica-$1.log" '.* started leading (term \([0-9]*\))'; }
kube() { kubectl --kubeconfig "$admin" "$@"; }
greeting() { # greeting NAME: create the Greeting NAME as the admin
  kube apply -n "$namespace" -f - >/dev/null <<EOF
apiVersion: examples.elector.dev/v1
kind: Greeting
metadata: {name: $1}
spec: {name: $1}
EOF
}
# written NAME: "REPLICA TOKEN" from the annotations of the ConfigMap NAME-greeting.
written() {
  kube get configmap "$1-greeting" -n "$namespace" \
    -o jsonpath='{.metadata.annotations.examples\.elector\.dev/reconciled-by} {.metadata.annotations.examples\.elector\.dev/fencing-token}'
}
# await_written NAME REPLICA TOKEN I: replica I logs that it wrote NAME-greeting in term TOKEN,
# and the ConfigMap says so.
await_written() {
  await "$work/replica-$4.log" " - wrote $1-greeting in term $3\$" 30 "${pid[$4]}" \
    || fail "replica $4 did not reconcile the Greeting $1 in term $3 within 30 s"
  [[ "$(written "$1")" == "$2 $3" ]] || fail "the ConfigMap $1-greeting says '$(written "$1")', want '$2 $3'"
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
launch 0
launch 1
greeting world
leader=""
deadline=$((SECONDS + 60))
while [[ -z "$leader" ]]; do
  for i in 0 1; do grep -q ' started leading ' "$work/replica-$i.log" && leader=$i && break; done
  [[ -n "$leader" || $SECONDS -lt $deadline ]] || fail "no replica leads within 60 s"
  [[ -n "$leader" ]] || sleep 0.1
done
follower=$((1 - leader))
first_token="$(leading_token "$leader")"
await "$work/replica-$follower.log" " - ${id[$follower]} follows ${id[$leader]}\$" 30 "${pid[$follower]}" \
  || fail "replica $follower does not see ${id[$leader]} lead within 30 s"
await_written world "${id[$leader]}" "$first_token" "$leader"
holder="$(kube get lease greeting-operator -n "$namespace" -o jsonpath='{.spec.holderIdentity}')"
[[ "$holder" == "${id[$leader]}" ]] || fail "the Lease names '$holder', not the leader ${id[$leader]}"
grep -q ' started leading ' "$work/replica-$follower.log" && fail "both replicas lead"
grep -q ' - wrote ' "$work/replica-$follower.log" && fail "the follower, replica $follower, reconciled"
echo "   exactly one leads: replica $leader (${id[$leader]}, fencing token $first_token) holds the Lease and wrote world-greeting; replica $follower follows and wrote nothing"

step "SIGKILL the leader, replica $leader; a second Greeting meanwhile"
killed_at="$(now_ms)"
kill -KILL "${pid[$leader]}"
wait "${pid[$leader]}" 2>/dev/null || true
unset "pid[$leader]"
greeting second
await "$work/replica-$follower.log" "${id[$follower]}.* started leading " 30 "${pid[$follower]}" \
  || fail "replica $follower did not take over within 30 s of the SIGKILL"
second_token="$(leading_token "$follower")"
[[ "$second_token" -gt "$first_token" ]] || fail "fencing token $second_token of the new term is not larger than $first_token"
await_written second "${id[$follower]}" "$second_token" "$follower"
await_written world "${id[$follower]}" "$second_token" "$follower"
kill_ms=$(($(logged_ms "$follower" ' started leading ') - killed_at))
kill_reconciled_ms=$(($(logged_ms "$follower" ' - wrote second-greeting ') - killed_at))
echo "   replica $follower leads ${kill_ms} ms after the SIGKILL (lease ${lease_ms} ms; fencing token $second_token), wrote second-greeting ${kill_reconciled_ms} ms after it, and world-greeting again"

step "a new replica 2 follows; SIGTERM the leader, replica $follower: its operator stops, it releases the Lease"
launch 2
await "$work/replica-2.log" " - ${id[2]} follows ${id[$follower]}\$" 30 "${pid[2]}" \
  || fail "replica 2 does not see ${id[$follower]} lead within 30 s"
termed_at="$(now_ms)"
kill -TERM "${pid[$follower]}"
await "$work/replica-2.log" "${id[2]}.* started leading " 30 "${pid[2]}" \
  || fail "replica 2 did not take over within 30 s of the SIGTERM"
wait "${pid[$follower]}" || true # 143: the JVM's status after SIGTERM, shutdown hooks run
unset "pid[$follower]"
term_ms=$(($(logged_ms 2 ' started leading ') - termed_at))
third_token="$(leading_token 2)"
[[ "$third_token" -gt "$second_token" ]] || fail "fencing token $third_token is not larger than $second_token"
grep -q " - the operator of term $second_token stopped\$" "$work/replica-$follower.log" \
  || fail "replica $follower exited without stopping the operator of term $second_token"
grep -q 'released the lock' "$work/replica-$follower.log" || fail "replica $follower did not release the Lease"
stopped_ms="$(logged_ms "$follower" " - the operator of term $second_token stopped\$")"
[[ "$stopped_ms" -le "$(logged_ms 2 ' started leading ')" ]] \
  || fail "replica 2 led before replica $follower's operator had stopped"
await_written second "${id[2]}" "$third_token" 2
awk -v t="$term_ms" 'BEGIN { exit !(t < 2000) }' || fail "the handover after SIGTERM took $term_ms ms, want under 2000 ms"
echo "   replica 2 leads ${term_ms} ms after the SIGTERM (fencing token $third_token); replica $follower stopped its operator, then released the Lease"

kill -TERM "${pid[2]}"
wait "${pid[2]}" || true
unset "pid[2]"

status=0
echo "qosdk-operator-ci: PASS elector $version with quarkus-operator-sdk 7.4.0 (JOSDK $josdk) on fabric8 $fabric8; one leader of two reconciles (fencing token $first_token); takeover ${kill_ms} ms after SIGKILL (lease ${lease_ms} ms), second Greeting reconciled at ${kill_reconciled_ms} ms; handover ${term_ms} ms after SIGTERM; $((SECONDS - started)) s in all"
