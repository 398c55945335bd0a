#!/usr/bin/env bash
# Proves that elector-quarkus works as published, from outside Elector's build: installs the
# library, builds examples/quarkus-leader (a Quarkus application of its own: the Quarkus BOM
# 3.33.2 and elector-bom imported, no other version named) against the version just installed, in
# JVM mode (fast-jar), and checks that it resolves one fabric8 version, 7.x, the one Quarkus
# manages. Then it runs two replicas on the local control plane, each as the ServiceAccount of the
# example's rbac.yaml and with its own HTTP port, and checks that exactly one leads, that /q/health
# and /q/metrics on both say which, that after a SIGKILL of the leader the other takes over with a
# larger fencing token, and that a SIGTERM of a leader hands over at once (it releases the Lease).
# Every wait is bounded and ends on a log line or an HTTP answer.
#   examples/quarkus-leader/ci.sh      (ELECTOR_APISERVER_BIN: the control plane binary; built
#                                       with testenv/build.sh when unset)
# Needs a JDK 17, curl and python3 (to read the health JSON).
# Prints "quarkus-leader-ci: PASS ..." or "quarkus-leader-ci: FAIL ..." and exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/quarkus-leader"
cd "$root"
# step, await, field, start_control_plane, stop_control_plane, service_account
source "$root/examples/ci-lib.sh"

namespace=quarkus-leader
work="$(mktemp -d "${TMPDIR:-/tmp}/quarkus-leader-ci.XXXXXX")"
declare -A pid=()
apiserver=""
status=1
started=$SECONDS

replica_traps quarkus-leader-ci

# elector_check PORT KEY: the value of KEY in the data of the liveness check "elector" on PORT.
elector_check() {
  curl -s -m 2 "http://127.0.0.1:$1/q/health/live" | python3 -c '
import json, sys
key = sys.argv[1]
checks = [c for c in json.load(sys.stdin).get("checks", []) if c.get("name") == "elector"]
print(json.dumps(checks[0]["status"] if key == "status" else checks[0]["data"].get(key)) if checks else "none")
' "$2" 2>/dev/null || echo "no answer"
}
# await_check PORT KEY WANT SECONDS PID: until elector_check PORT KEY prints WANT (JSON).
answer=""
await_check() {
  local deadline=$((SECONDS + $4))
  until answer="$(elector_check "$1" "$2")" && [[ "$answer" == "$3" ]]; do
    [[ $SECONDS -lt $deadline ]] && kill -0 "$5" 2>/dev/null || return 1
    sleep 0.1
  done
}
# leader_gauge PORT: the value of leader_election_master_status on PORT's /q/metrics.
leader_gauge() {
  curl -s -m 2 "http://127.0.0.1:$1/q/metrics" | sed -n 's/^leader_election_master_status{.*name="quarkus-leader".*} \(.*\)$/\1/p'
}
# launch I: replica I, with a port of its own (logged) and POD_NAME quarkus-leader-I.
launch() {
  env POD_NAME="quarkus-leader-$1" POD_NAMESPACE="$namespace" KUBECONFIG="$work/quarkus-leader.kubeconfig" \
    QUARKUS_HTTP_PORT=0 QUARKUS_ELECTOR_LEASE_DURATION=4s QUARKUS_ELECTOR_RENEW_DEADLINE=3s \
    QUARKUS_ELECTOR_RETRY_PERIOD=500ms JAVA_TOOL_OPTIONS=-Xmx128m \
    java -jar "$here/target/quarkus-app/quarkus-run.jar" >"$work/replica-$1.log" 2>&1 &
  pid[$1]=$!
}
declare -A id=() port=()
await_replica() {
  await "$work/replica-$1.log" ' is a candidate for ' 60 "${pid[$1]}" || fail "replica $1 did not start"
  await "$work/replica-$1.log" 'Listening on: http://[^:]*:[0-9]+' 30 "${pid[$1]}" || fail "replica $1 does not listen"
  id[$1]="$(field "$work/replica-$1.log" '\(.*\) is a candidate for .*')"
  port[$1]="$(sed -n 's#.*Listening on: http://[^:]*:\([0-9]*\).*#\1#p' "$work/replica-$1.log" | head -n1)"
  echo "   replica $1: ${id[$1]}, HTTP on port ${port[$1]}"
}
# seconds_since T0: seconds from T0 (date +%s.%N) to now, one decimal.
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

for tool in java curl python3; do command -v "$tool" >/dev/null || fail "$tool is not on PATH"; done
version="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' pom.xml | head -n1)"
[[ -n "$version" ]] || fail "cannot read the version from pom.xml"

step "install elector $version (elector-bom, elector-quarkus, elector-quarkus-deployment and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl libraries/elector-bom,integrations/elector-quarkus/runtime,integrations/elector-quarkus/deployment -am

step "build examples/quarkus-leader against elector $version (Quarkus 3.33.2, JVM mode, fast-jar)"
rm -rf "$here/target"
build_started=$SECONDS
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" package
echo "   built in $((SECONDS - build_started)) s: target/quarkus-app/quarkus-run.jar"
lib="$here/target/quarkus-app/lib/main"
fabric8_versions="$(cd "$lib" && ls io.fabric8.*.jar | sed -E 's/.*-([0-9][^-]*)\.jar$/\1/' | sort -u | tr '\n' ' ')"
[[ "$fabric8_versions" =~ ^7\.[0-9.]+\ $ ]] || fail "the application holds fabric8 ${fabric8_versions% }, want one 7.x version"
fabric8_version="${fabric8_versions% }"
jackson="$(cd "$lib" && ls com.fasterxml.jackson.core.jackson-databind-*.jar | sed -E 's/.*-([0-9][^-]*)\.jar$/\1/')"
! ls "$lib" | grep -q '^tools\.jackson' || fail "the application holds Jackson 3"
elector_jars="$(cd "$lib" && ls dev.elector.*.jar | sed 's/^dev\.elector\.//' | tr '\n' ' ')"
echo "   lib/main: fabric8 $fabric8_version, jackson-databind $jackson; Elector: ${elector_jars% }"

start_control_plane
service_account "$namespace" "$here/rbac.yaml" quarkus-leader "$work/quarkus-leader.kubeconfig"

step "two replicas: java -jar target/quarkus-app/quarkus-run.jar (lease 4 s, renew deadline 3 s, retry 0.5 s)"
launch 0
launch 1
await_replica 0
await_replica 1
leader=""
deadline=$((SECONDS + 60))
while [[ -z "$leader" ]]; do
  for i in 0 1; do grep -q ' started leading ' "$work/replica-$i.log" && leader=$i && break; done
  [[ -n "$leader" || $SECONDS -lt $deadline ]] || fail "no replica leads within 60 s"
  [[ -n "$leader" ]] || sleep 0.1
done
follower=$((1 - leader))
await_check "${port[$follower]}" leader "\"${id[$leader]}\"" 20 "${pid[$follower]}" \
  || fail "the follower's /q/health/live names '$answer' as the leader, want ${id[$leader]}"
grep -q ' started leading ' "$work/replica-$follower.log" && fail "both replicas lead"
first_token="$(field "$work/replica-$leader.log" '.* started leading (fencing token \([0-9]*\))')"
echo "   exactly one leads: replica $leader (${id[$leader]}, fencing token $first_token), replica $follower follows"

step "/q/health/live and /q/metrics on both name the leader"
await_check "${port[$leader]}" leading true 10 "${pid[$leader]}" || fail "the leader's check says leading $answer"
[[ "$(elector_check "${port[$leader]}" status)" == '"UP"' ]] || fail "the leader's check is not UP"
[[ "$(elector_check "${port[$leader]}" term)" == "$first_token" ]] || fail "the leader's check shows another term"
[[ "$(elector_check "${port[$follower]}" leading)" == false ]] || fail "the follower's check says it leads"
[[ "$(elector_check "${port[$follower]}" status)" == '"UP"' ]] || fail "the follower's check is not UP"
echo "   replica $leader: UP, leading true, term $first_token; replica $follower: UP, leading false, leader ${id[$leader]}"
[[ "$(leader_gauge "${port[$leader]}")" == 1.0 ]] || fail "the leader's leader_election_master_status is '$(leader_gauge "${port[$leader]}")', want 1.0"
[[ "$(leader_gauge "${port[$follower]}")" == 0.0 ]] || fail "the follower's leader_election_master_status is '$(leader_gauge "${port[$follower]}")', want 0.0"
echo "   leader_election_master_status{name=\"quarkus-leader\"}: replica $leader 1.0, replica $follower 0.0"

step "SIGKILL the leader, replica $leader"
killed_at=$(date +%s.%N)
kill -KILL "${pid[$leader]}"
wait "${pid[$leader]}" 2>/dev/null || true
unset "pid[$leader]"
await "$work/replica-$follower.log" "${id[$follower]} started leading " 30 "${pid[$follower]}" \
  || fail "replica $follower did not take over within 30 s of the SIGKILL"
kill_took="$(seconds_since "$killed_at")"
second_token="$(field "$work/replica-$follower.log" '.* started leading (fencing token \([0-9]*\))')"
[[ "$second_token" -gt "$first_token" ]] || fail "fencing token $second_token of the new term is not larger than $first_token"
await_check "${port[$follower]}" leading true 5 "${pid[$follower]}" || fail "the new leader's check says leading $answer"
echo "   replica $follower took over ${kill_took} s after the SIGKILL (lease 4 s; fencing token $second_token)"

step "a new replica 2 follows; SIGTERM the leader, replica $follower: it releases the Lease"
launch 2
await_replica 2
await_check "${port[2]}" leader "\"${id[$follower]}\"" 20 "${pid[2]}" \
  || fail "replica 2's check names '$answer' as the leader, want ${id[$follower]}"
termed_at=$(date +%s.%N)
kill -TERM "${pid[$follower]}"
await "$work/replica-2.log" "${id[2]} started leading " 30 "${pid[2]}" \
  || fail "replica 2 did not take over within 30 s of the SIGTERM"
term_took="$(seconds_since "$termed_at")"
wait "${pid[$follower]}" || true
unset "pid[$follower]"
grep -q "${id[$follower]} stopped leading: CLOSED" "$work/replica-$follower.log" \
  || fail "replica $follower exited without its LeadershipRevoked (CLOSED)"
grep -q 'released the lock' "$work/replica-$follower.log" || fail "replica $follower did not release the Lease"
third_token="$(field "$work/replica-2.log" '.* started leading (fencing token \([0-9]*\))')"
[[ "$third_token" -gt "$second_token" ]] || fail "fencing token $third_token is not larger than $second_token"
awk -v t="$term_took" 'BEGIN { exit !(t < 2.0) }' || fail "the handover after SIGTERM took $term_took s, want under 2 s"
await_check "${port[2]}" leading true 5 "${pid[2]}" || fail "the new leader's check says leading $answer"
[[ "$(leader_gauge "${port[2]}")" == 1.0 ]] || fail "replica 2's leader_election_master_status is not 1.0"
echo "   replica 2 took over ${term_took} s after the SIGTERM (fencing token $third_token); replica $follower revoked (CLOSED) and released"

kill -TERM "${pid[2]}"
wait "${pid[2]}" || true
unset "pid[2]"

status=0
echo "quarkus-leader-ci: PASS elector $version with Quarkus 3.33.2 on fabric8 $fabric8_version (jackson-databind $jackson), JVM mode; one leader of two, /q/health and /q/metrics name it; takeover ${kill_took} s after SIGKILL, ${term_took} s after SIGTERM; $((SECONDS - started)) s in all"
