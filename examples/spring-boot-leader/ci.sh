#!/usr/bin/env bash
# Proves elector-spring-boot-starter as published, from outside Elector's build: installs the
# library, builds examples/spring-boot-leader (Spring Boot 4.0.7, elector-bom, the starter) and its
# image (Jib, on a stand-in base as hello-leader's ci.sh does) against the version just installed,
# checks the image's configuration and class path, and runs two replicas of the image's entrypoint
# from its layers as separate JVMs on the local control plane, each as the ServiceAccount of the
# shipped deploy/lease/rbac.yaml. It checks that exactly one runs
# the leader-only job, that /actuator/health and /actuator/prometheus say who leads, that a SIGKILL
# of the leader hands over within the lease plus a margin, and that a SIGTERM hands over in under a
# second (the elector closes before the web server's graceful shutdown). It prints both figures.
#   examples/spring-boot-leader/ci.sh   (ELECTOR_APISERVER_BIN: the control plane binary)
#   SPRING_BOOT_VERSION=3.5.7 examples/spring-boot-leader/ci.sh   the same on another Spring Boot
#                                       (the pom's spring-boot.version; default 4.0.7)
# Prints "spring-boot-leader-ci: PASS ..." or "spring-boot-leader-ci: FAIL ..."; exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/spring-boot-leader"
cd "$root"
source "$root/examples/ci-lib.sh"

namespace=spring-boot-leader
work="$(mktemp -d "${TMPDIR:-/tmp}/spring-boot-leader-ci.XXXXXX")"
declare -A pid=() port=()
apiserver=""
status=1
# Short timings for CI: lease 4 s, renew deadline 3 s, retry 0.5 s.
lease_seconds=4
margin_seconds=3

replica_traps spring-boot-leader-ci
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
get() { curl -s -m 2 "http://127.0.0.1:$1$2" || true; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

for tool in java curl python3 tar sha256sum; do command -v "$tool" >/dev/null || fail "$tool is not on PATH"; done
boot="${SPRING_BOOT_VERSION:-4.0.7}"
version="$(elector_version)"

step "install elector $version (elector-bom, elector-spring-boot-starter and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl libraries/elector-bom,integrations/elector-spring-boot-starter -am

# The pom's base image, eclipse-temurin:17-jre, is on a registry that CI cannot reach: the image is
# built on a stand-in (one layer, no JRE); the rest is the pom's configuration.
standin_base_image spring-boot-leader

step "build examples/spring-boot-leader and its image against elector $version on Spring Boot $boot (mvn package jib:buildTar)"
rm -rf "$here/target"
build_started=$SECONDS
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" -Dspring-boot.version="$boot" package jib:buildTar \
  -Djib.from.image="tar://$work/base.tar" -Djib.baseImageCache="$work/jib-base-cache" \
  -Djib.disableUpdateChecks=true
echo "   built in $((SECONDS - build_started)) s: target/jib-image.tar, $(du -m "$here/target/jib-image.tar" | cut -f1) MB"

step "check the image: entrypoint, port, user; its class path holds the starter and no fabric8"
image="$work/image"
rootfs="$work/rootfs"
mkdir -p "$image" "$rootfs"
tar -xf "$here/target/jib-image.tar" -C "$image"
config="$image/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["Config"])' "$image/manifest.json")"
read_config() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["config"]; print(json.dumps(c.get(sys.argv[2]), separators=(",", ":")))' "$config" "$1"; }
[[ "$(read_config Entrypoint)" == '["java","-cp","/app/resources:/app/classes:/app/libs/*","dev.elector.examples.spring.SpringBootLeader"]' ]] \
  || fail "the image's entrypoint is $(read_config Entrypoint)"
[[ "$(read_config ExposedPorts)" == '{"8080/tcp":{}}' ]] || fail "the image exposes $(read_config ExposedPorts)"
[[ "$(read_config User)" == '"65532:65532"' ]] || fail "the image's user is $(read_config User)"
for layer in $(python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))[0]["Layers"][1:])' "$image/manifest.json"); do
  tar --warning=no-unknown-keyword -xzf "$image/$layer" -C "$rootfs"
done
elector_jars="$(cd "$rootfs/app/libs" && ls elector-* | sort | tr '\n' ' ')"
echo "   entrypoint java -cp /app/resources:/app/classes:/app/libs/* ...SpringBootLeader, port 8080, user 65532:65532"
echo "   Elector in /app/libs: $elector_jars"
[[ "$elector_jars" == *"elector-spring-boot-starter-$version.jar"* && "$elector_jars" == *"elector-k8s-lease-$version.jar"* ]] \
  || fail "the image lacks the starter or elector-k8s-lease"
[[ "$elector_jars" != *fabric8* ]] || fail "the starter brought elector-fabric8"
ls "$rootfs/app/libs" | grep -q '^kubernetes-client' && fail "the starter brought fabric8"
ls "$rootfs/app/libs" | grep -qxF "spring-boot-$boot.jar" || fail "the image has no Spring Boot $boot"

start_control_plane
service_account "$namespace" deploy/lease/rbac.yaml my-app "$work/my-app.kubeconfig"

start_replica() { # start_replica I
  local i=$1
  port[$i]="$(free_port)"
  env POD_NAME="replica-$i" POD_NAMESPACE="$namespace" KUBECONFIG="$work/my-app.kubeconfig" \
    java -Xmx192m -XX:TieredStopAtLevel=1 -cp "$rootfs/app/resources:$rootfs/app/classes:$rootfs/app/libs/*" \
    dev.elector.examples.spring.SpringBootLeader --server.port="${port[$i]}" \
    --elector.lease-duration=${lease_seconds}s --elector.renew-deadline=3s --elector.retry-period=500ms \
    >"$work/replica-$i.log" 2>&1 &
  pid[$i]=$!
}
leader_of() { # the replicas (of those running) whose logs say they lead now, by their last transition
  # pid is an associative array, so its keys come in hash order: the last replica tested may follow,
  # and the function must not return that test's status (under set -e the caller would fail).
  local i
  for i in "${!pid[@]}"; do
    if [[ "$(grep -E ' (started|stopped) leading' "$work/replica-$i.log" | tail -n1)" == *"started leading"* ]]; then
      echo "$i"
    fi
  done
  return 0
}

step "two replicas of the image's entrypoint, from its layers"
start_replica 0
start_replica 1
for i in 0 1; do
  await "$work/replica-$i.log" 'Started SpringBootLeader' 90 "${pid[$i]}" || fail "replica $i did not start"
  echo "   replica $i: port ${port[$i]}"
done
deadline=$((SECONDS + 30))
until [[ -n "$(leader_of)" ]]; do
  [[ $SECONDS -lt $deadline ]] || fail "no replica leads within 30 s of start"
  sleep 0.1
done
leader="$(leader_of)"
[[ "$(leader_of | wc -l)" == 1 ]] || fail "more than one replica leads: $(leader_of | tr '\n' ' ')"
follower=$((1 - leader))
await "$work/replica-$leader.log" 'report 3 written with fencing token' 15 "${pid[$leader]}" || fail "the leader does not run the job"
grep -q 'report .* written' "$work/replica-$follower.log" && fail "the follower ran the leader-only job"
token="$(sed -n 's/.*started leading (fencing token \([0-9]*\)).*/\1/p' "$work/replica-$leader.log" | tail -n1)"
echo "   exactly one leads and runs the job: replica $leader (fencing token $token); replica $follower follows and does not"

step "/actuator/health and /actuator/prometheus say who leads"
health="$(get "${port[$leader]}" /actuator/health/elector)"
[[ "$health" == *'"status":"UP"'* && "$health" == *'"leading":true'* ]] || fail "the leader's health: $health"
echo "   replica $leader /actuator/health/elector: $health"
deadline=$((SECONDS + 10))
until health="$(get "${port[$follower]}" /actuator/health/elector)" && [[ "$health" == *'"leader":"replica-'"$leader"* ]]; do
  [[ $SECONDS -lt $deadline ]] || fail "the follower's health does not name the leader: $health"
  sleep 0.2
done
[[ "$health" == *'"status":"UP"'* && "$health" == *'"leading":false'* ]] || fail "the follower's health: $health"
echo "   replica $follower /actuator/health/elector: $health"
for i in 0 1; do
  gauge="$(get "${port[$i]}" /actuator/prometheus | grep '^leader_election_master_status' || true)"
  want=$([[ $i == "$leader" ]] && echo 1.0 || echo 0.0)
  [[ "$gauge" == *" $want" ]] || fail "replica $i /actuator/prometheus: '$gauge', want $want"
  echo "   replica $i /actuator/prometheus: $gauge"
done

step "SIGKILL the leader, replica $leader (lease ${lease_seconds} s)"
killed_at="$(now)"
kill -KILL "${pid[$leader]}"
wait "${pid[$leader]}" 2>/dev/null || true
unset "pid[$leader]"
await "$work/replica-$follower.log" 'started leading' $((lease_seconds + margin_seconds)) "${pid[$follower]}" \
  || fail "replica $follower did not take over within ${lease_seconds} s + ${margin_seconds} s of the SIGKILL"
kill_handover="$(since "$killed_at")"
echo "   replica $follower took over ${kill_handover} s after the SIGKILL"

step "a new replica 2 follows; SIGTERM the leader, replica $follower"
start_replica 2
await "$work/replica-2.log" 'Started SpringBootLeader' 90 "${pid[2]}" || fail "replica 2 did not start"
deadline=$((SECONDS + 10))
until [[ "$(get "${port[2]}" /actuator/health/elector)" == *'"leader":"replica-'"$follower"* ]]; do
  [[ $SECONDS -lt $deadline ]] || fail "replica 2 does not see replica $follower lead"
  sleep 0.2
done
termed_at="$(now)"
kill -TERM "${pid[$follower]}"
await "$work/replica-2.log" 'started leading' 5 "${pid[2]}" || fail "replica 2 did not take over after the SIGTERM"
term_handover="$(since "$termed_at")"
awk -v t="$term_handover" 'BEGIN { exit !(t < 1.0) }' || fail "the SIGTERM handover took ${term_handover} s, want under 1 s"
echo "   replica 2 took over ${term_handover} s after the SIGTERM"
await "$work/replica-$follower.log" 'stopped leading: CLOSED' 10 || fail "replica $follower did not close its term"
wait "${pid[$follower]}" 2>/dev/null || true
unset "pid[$follower]"

status=0
echo "spring-boot-leader-ci: PASS elector $version on Spring Boot $boot; image spring-boot-leader:1.0.0 checked and run from its layers; one leader of two runs the job; health and prometheus name the leader; takeover ${kill_handover} s after SIGKILL (lease ${lease_seconds} s), ${term_handover} s after SIGTERM"
