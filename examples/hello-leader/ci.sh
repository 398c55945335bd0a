#!/usr/bin/env bash
# Proves that Elector works as published, from outside its own build: installs the library, builds
# examples/hello-leader (a project of its own that imports elector-bom and depends on
# elector-k8s-lease) against the version just installed, with its container image (Jib, no
# container daemon: target/jib-image.tar). It checks the image: its configuration (entrypoint,
# port, non-root user) and that its layers hold the classes and exactly the runtime class path.
# Then it runs two replicas of the image's entrypoint, from the image's own layers with this JDK,
# as local processes on the local control plane, each as the ServiceAccount of the shipped
# deploy/lease/rbac.yaml and with its own health port. It checks that exactly one leads and works,
# that /healthz answers 200 on both and /readyz names the leader, and that after a SIGKILL of the
# leader the other takes over with a larger fencing token and says so on /readyz; then that
# SIGTERM makes the new leader stop its work and close. Every wait is bounded and ends on a log
# line or an HTTP answer.
#   examples/hello-leader/ci.sh        (ELECTOR_APISERVER_BIN: the control plane binary; built
#                                       with testenv/build.sh when unset)
# Needs a JDK 17, curl, python3 (to read the image's JSON) and GNU tar.
# Prints "hello-leader-ci: PASS ..." or "hello-leader-ci: FAIL ..." and exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/hello-leader"
cd "$root"
# step, await, field, start_control_plane, stop_control_plane, service_account
source "$root/examples/ci-lib.sh"

namespace=hello-leader
work="$(mktemp -d "${TMPDIR:-/tmp}/hello-leader-ci.XXXXXX")"
declare -A pid=()
apiserver=""
status=1

replica_traps hello-leader-ci

# json FILE KEY...: the value at KEY... (object keys, list indices) of the JSON document FILE, as
# compact JSON; null when absent. json_text: the same value as text, a list one element a line.
json_program='
import json, sys
mode, path, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
value = json.load(open(path))
for key in keys:
    if isinstance(value, list):
        value = value[int(key)] if int(key) < len(value) else None
    elif isinstance(value, dict):
        value = value.get(key)
if mode == "text":
    print(*(value if isinstance(value, list) else [value]), sep="\n")
else:
    print(json.dumps(value, separators=(",", ":")))
'
json() { python3 -c "$json_program" json "$@"; }
json_text() { python3 -c "$json_program" text "$@"; }
# expect_json FILE WANT KEY...: the value at KEY... of FILE is WANT (compact JSON), or fail.
expect_json() {
  local file=$1 want=$2 got
  shift 2
  got="$(json "$file" "$@")" || fail "cannot read $* from ${file##*/}"
  [[ "$got" == "$want" ]] || fail "the image's ${file##*/} has $* = $got, want $want"
}
# probe PORT PATH: "STATUS FIRST-LINE-OF-BODY" of a GET on 127.0.0.1 (STATUS 000: no answer).
probe() {
  local status
  rm -f "$work/probe.body"
  status="$(curl -s -m 2 -o "$work/probe.body" -w '%{http_code}' "http://127.0.0.1:$1$2" || true)"
  echo "$status $(head -n1 "$work/probe.body" 2>/dev/null || true)"
}
# await_probe PORT PATH REGEX SECONDS PID: until the probe's answer matches REGEX; fails after
# SECONDS, or at once when PID has exited. The last answer is left in $answer.
answer=""
await_probe() {
  local port=$1 path=$2 regex=$3 deadline=$((SECONDS + $4)) watched=$5
  until answer="$(probe "$port" "$path")" && [[ "$answer" =~ $regex ]]; do
    [[ $SECONDS -lt $deadline ]] && kill -0 "$watched" 2>/dev/null || return 1
    sleep 0.1
  done
}

for tool in java curl python3 tar sha256sum; do
  command -v "$tool" >/dev/null || fail "$tool is not on PATH"
done
version="$(elector_version)"

step "install elector $version (elector-bom, elector-k8s-lease and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl libraries/elector-bom,elector-k8s-lease -am

# The pom's base image, eclipse-temurin:17-jre, is on a registry that CI cannot reach: the image
# is built on a stand-in instead, a `docker save` tarball made here (one layer, no JRE). All the
# rest (entrypoint, port, user, the application's layers) is the pom's configuration.
standin_base_image hello-leader

step "build examples/hello-leader and its image against elector $version (mvn package jib:buildTar)"
rm -rf "$here/target"
build_started=$SECONDS
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" package jib:buildTar \
  -Djib.from.image="tar://$work/base.tar" -Djib.baseImageCache="$work/jib-base-cache" \
  -Djib.disableUpdateChecks=true
echo "   built in $((SECONDS - build_started)) s: target/jib-image.tar, $(du -m "$here/target/jib-image.tar" | cut -f1) MB"
elector_jars="$(cd "$here/target/lib" && find . -name 'elector-*' | sed 's#^\./##' | sort | tr '\n' ' ')"
want_jars="elector-core-$version.jar elector-k8s-lease-$version.jar elector-kube-base-$version.jar "
[[ "$elector_jars" == "$want_jars" ]] \
  || fail "hello-leader's class path holds '$elector_jars', want elector-core, elector-k8s-lease and elector-kube-base $version only"

step "check the image: configuration, then layers against target/classes and target/lib"
image="$work/image"
rootfs="$work/rootfs" # the application's layers, unpacked in order
mkdir -p "$image" "$rootfs"
tar -xf "$here/target/jib-image.tar" -C "$image"
expect_json "$image/manifest.json" '["hello-leader:1.0.0"]' 0 RepoTags
config="$image/$(json_text "$image/manifest.json" 0 Config)"
expect_json "$config" '["java","-cp","/app/resources:/app/classes:/app/libs/*","dev.elector.examples.hello.HelloLeader"]' config Entrypoint
expect_json "$config" 'null' config Cmd
expect_json "$config" '{"8080/tcp":{}}' config ExposedPorts
expect_json "$config" '"65532:65532"' config User
expect_json "$config" "\"$base_layer\"" rootfs diff_ids 0
mapfile -t layers < <(json_text "$image/manifest.json" 0 Layers)
mapfile -t diff_ids < <(json_text "$config" rootfs diff_ids)
[[ ${#layers[@]} -ge 2 && ${#diff_ids[@]} == "${#layers[@]}" ]] \
  || fail "the image has ${#layers[@]} layers in manifest.json and a config that does not list as many"
for layer in "${layers[@]:1}"; do
  outside="$(tar --warning=no-unknown-keyword -tzf "$image/$layer" | grep -v '^app/' || true)"
  [[ -z "$outside" ]] || fail "the application layer $layer writes outside /app: $outside"
  tar --warning=no-unknown-keyword -xzf "$image/$layer" -C "$rootfs"
done
diff -r "$here/target/lib" "$rootfs/app/libs" >"$work/libs.diff" \
  || fail "the image's /app/libs is not the runtime class path target/lib: $(head -n 5 "$work/libs.diff")"
image_jars="$(cd "$rootfs/app/libs" && find . -name 'elector-*' | sed 's#^\./##' | sort | tr '\n' ' ')"
[[ "$image_jars" == "$want_jars" ]] || fail "the image's /app/libs holds '$image_jars', want '$want_jars'"
(cd "$here/target/classes" && find . -type f -name '*.class' | sort) >"$work/classes.want"
(cd "$rootfs/app/classes" && find . -type f | sort) >"$work/classes.image"
diff "$work/classes.want" "$work/classes.image" >"$work/classes.diff" \
  || fail "the image's /app/classes is not the classes of target/classes: $(head -n 5 "$work/classes.diff")"
while read -r class; do
  cmp -s "$here/target/classes/$class" "$rootfs/app/classes/$class" || fail "the image's /app/classes/$class differs"
done <"$work/classes.want"
grep -q '^\./dev/elector/examples/hello/HelloLeader\.class$' "$work/classes.image" \
  || fail "the image has no /app/classes/dev/elector/examples/hello/HelloLeader.class"
cmp -s "$here/target/classes/simplelogger.properties" "$rootfs/app/resources/simplelogger.properties" \
  || fail "the image's /app/resources/simplelogger.properties is missing or differs"
mapfile -t entrypoint < <(json_text "$config" config Entrypoint)
echo "   hello-leader:1.0.0: ${#layers[@]} layers (1 base, $((${#layers[@]} - 1)) application), user 65532:65532, port 8080/tcp"
echo "   /app/libs = target/lib ($(find "$rootfs/app/libs" -name '*.jar' | wc -l) jars; Elector: ${image_jars% }); /app/classes = target/classes ($(wc -l <"$work/classes.want") classes)"

start_control_plane
service_account "$namespace" deploy/lease/rbac.yaml my-app "$work/my-app.kubeconfig"

# The image's entrypoint with its /app read from the unpacked layers; `java` is this JDK's, as it is
# the base image's in a container. HEALTH_PORT=0: each replica binds a free port and logs it.
step "two replicas of the image's entrypoint: ${entrypoint[*]}"
launch=("${entrypoint[@]//\/app\//$rootfs/app/}")
for i in 0 1; do
  env POD_NAME="hello-leader-$i" POD_NAMESPACE="$namespace" KUBECONFIG="$work/my-app.kubeconfig" \
    HEALTH_PORT=0 JAVA_TOOL_OPTIONS=-Xmx128m "${launch[@]}" >"$work/replica-$i.log" 2>&1 &
  pid[$i]=$!
done
declare -A id=() port=()
for i in 0 1; do
  await "$work/replica-$i.log" ' is a candidate for ' 60 "${pid[$i]}" || fail "replica $i did not start"
  id[$i]="$(field "$work/replica-$i.log" '\(.*\) is a candidate for .*')"
  port[$i]="$(field "$work/replica-$i.log" '.* serves /healthz and /readyz on port \([0-9]*\)$')"
  [[ -n "${port[$i]}" ]] || fail "replica $i does not say which port it serves its probes on"
  echo "   replica $i: ${id[$i]}, probes on port ${port[$i]}"
done

leader=""
deadline=$((SECONDS + 60))
while [[ -z "$leader" ]]; do
  for i in 0 1; do grep -q ' started leading ' "$work/replica-$i.log" && leader=$i && break; done
  [[ -n "$leader" || $SECONDS -lt $deadline ]] || fail "no replica leads within 60 s"
  [[ -n "$leader" ]] || sleep 0.1
done
follower=$((1 - leader))
# The follower has seen the leader's Lease, and the leader is working: now exactly one leads.
await "$work/replica-$follower.log" "the leader is now ${id[$leader]}\$" 30 "${pid[$follower]}" \
  || fail "replica $follower does not see ${id[$leader]} as the leader"
await "$work/replica-$leader.log" "${id[$leader]} works: step 2\$" 30 "${pid[$leader]}" \
  || fail "the leader ${id[$leader]} does not work"
grep -q ' started leading ' "$work/replica-$follower.log" && fail "both replicas lead"
first_token="$(field "$work/replica-$leader.log" '.* started leading (fencing token \([0-9]*\))')"
echo "   exactly one leads: replica $leader (${id[$leader]}, fencing token $first_token), replica $follower follows"

step "probes: /healthz 200 on the leader and the follower, /readyz names the leader"
await_probe "${port[$leader]}" /healthz "^200 .*\\[${id[$leader]}\\]: leading, renewed " 10 "${pid[$leader]}" \
  || fail "the leader's /healthz answers '$answer', want 200 and leading"
echo "   replica $leader /healthz: $answer"
await_probe "${port[$follower]}" /healthz "^200 .*\\[${id[$follower]}\\]: following ${id[$leader]}" 10 "${pid[$follower]}" \
  || fail "the follower's /healthz answers '$answer', want 200 and following ${id[$leader]}"
echo "   replica $follower /healthz: $answer"
await_probe "${port[$leader]}" /readyz "^200 ready: ${id[$leader]} leads\$" 10 "${pid[$leader]}" \
  || fail "the leader's /readyz answers '$answer', want 200 and that it leads"
echo "   replica $leader /readyz: $answer"
await_probe "${port[$follower]}" /readyz "^200 ready: ${id[$follower]} follows ${id[$leader]}\$" 10 "${pid[$follower]}" \
  || fail "the follower's /readyz answers '$answer', want 200 and that it follows ${id[$leader]}"
echo "   replica $follower /readyz: $answer"

step "SIGKILL the leader, replica $leader"
killed_at=$(date +%s.%N)
kill -KILL "${pid[$leader]}"
wait "${pid[$leader]}" 2>/dev/null || true
unset "pid[$leader]"
# Waiting for the dead leader's Lease to expire is no reason to restart the follower.
await_probe "${port[$follower]}" /healthz "^200 .*: following ${id[$leader]}" 5 "${pid[$follower]}" \
  || fail "the follower's /healthz answers '$answer' once the leader is gone, want 200"
echo "   replica $follower /healthz: $answer"
await "$work/replica-$follower.log" "${id[$follower]} started leading " 60 "${pid[$follower]}" \
  || fail "replica $follower did not take over within 60 s of the SIGKILL"
took="$(awk -v a="$killed_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
await "$work/replica-$follower.log" "${id[$follower]} works: step 1\$" 10 "${pid[$follower]}" \
  || fail "the new leader does not work"
second_token="$(field "$work/replica-$follower.log" '.* started leading (fencing token \([0-9]*\))')"
[[ "$second_token" -gt "$first_token" ]] \
  || fail "fencing token $second_token of the new term is not larger than $first_token"
echo "   replica $follower took over ${took} s after the SIGKILL (fencing token $second_token)"
await_probe "${port[$follower]}" /readyz "^200 ready: ${id[$follower]} leads\$" 5 "${pid[$follower]}" \
  || fail "the new leader's /readyz answers '$answer', want 200 and that it leads"
echo "   replica $follower /readyz: $answer"
await_probe "${port[$follower]}" /healthz "^200 .*: leading, renewed " 5 "${pid[$follower]}" \
  || fail "the new leader's /healthz answers '$answer', want 200 and leading"
echo "   replica $follower /healthz: $answer"

step "SIGTERM the new leader: it stops working, stops leading and closes"
kill -TERM "${pid[$follower]}"
await "$work/replica-$follower.log" "${id[$follower]} closed\$" 30 "${pid[$follower]}" \
  || fail "replica $follower did not close after SIGTERM"
grep -q "${id[$follower]} stopped working after " "$work/replica-$follower.log" \
  && grep -q "${id[$follower]} stopped leading: " "$work/replica-$follower.log" \
  || fail "replica $follower closed without stopping its work and its term"
wait "${pid[$follower]}" || true
unset "pid[$follower]"

status=0
echo "hello-leader-ci: PASS elector $version from the local repository; image hello-leader:1.0.0 checked and run from its layers; one leader of two, /healthz 200 on both, /readyz names the leader; takeover ${took} s after SIGKILL; clean close on SIGTERM"
