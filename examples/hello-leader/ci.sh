#!/usr/bin/env bash
# Proves that Elector works as published, from outside its own build: installs the library, builds
# examples/hello-leader (a project of its own that imports elector-bom and depends on
# elector-k8s-lease) against the version just installed, then runs two replicas of it as local
# processes on the local control plane, each as the ServiceAccount of the shipped
# deploy/lease/rbac.yaml. It checks that exactly one leads and works, and that after a SIGKILL of
# the leader the other takes over with a larger fencing token; then that SIGTERM makes the new
# leader stop its work and close. Every wait is bounded and ends on a log line.
#   examples/hello-leader/ci.sh        (ELECTOR_APISERVER_BIN: the control plane binary; built
#                                       with testenv/build.sh when unset)
# Prints "hello-leader-ci: PASS ..." or "hello-leader-ci: FAIL ..." and exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/hello-leader"
cd "$root"

namespace=hello-leader
work="$(mktemp -d "${TMPDIR:-/tmp}/hello-leader-ci.XXXXXX")"
declare -A pid=()
apiserver=""
status=1

cleanup() {
  for i in "${!pid[@]}"; do kill -KILL "${pid[$i]}" 2>/dev/null || true; done
  if [[ -n "$apiserver" ]]; then
    exec 7>&- # stdin EOF: the control plane stops and deletes its data
    wait "$apiserver" 2>/dev/null || true
  fi
  if [[ $status == 0 ]]; then rm -rf "$work"; else echo "hello-leader-ci: logs kept in $work"; fi
}
trap cleanup EXIT
trap 'fail "line $LINENO: $BASH_COMMAND exited with $?"' ERR

step() { echo "== $*"; }
fail() {
  echo "hello-leader-ci: FAIL $*"
  for log in "$work"/replica-*.log; do
    [[ -f "$log" ]] && { echo "--- last lines of $log"; tail -n 15 "$log"; }
  done
  exit 1
}
# await FILE REGEX SECONDS [PID]: until a line of FILE matches REGEX; fails after SECONDS, or at
# once when PID has exited.
await() {
  local file=$1 regex=$2 deadline=$((SECONDS + $3)) watched=${4:-}
  until grep -qE "$regex" "$file" 2>/dev/null; do
    [[ $SECONDS -lt $deadline ]] || return 1
    if [[ -n "$watched" ]] && ! kill -0 "$watched" 2>/dev/null; then
      grep -qE "$regex" "$file" 2>/dev/null && return 0
      return 1
    fi
    sleep 0.1
  done
}
field() { sed -n "s/.* - $2/\1/p" "$1" | head -n1; }

version="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' pom.xml | head -n1)"
[[ -n "$version" ]] || fail "cannot read the version from pom.xml"

step "install elector $version (elector-bom, elector-k8s-lease and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl elector-bom,elector-k8s-lease -am

step "build examples/hello-leader against elector $version"
rm -rf "$here/target"
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" package
elector_jars="$(cd "$here/target/lib" && find . -name 'elector-*' | sed 's#^\./##' | sort | tr '\n' ' ')"
[[ "$elector_jars" == "elector-core-$version.jar elector-k8s-lease-$version.jar elector-kube-base-$version.jar " ]] \
  || fail "hello-leader's class path holds '$elector_jars', want elector-core, elector-k8s-lease and elector-kube-base $version only"

if [[ ! -f demo/target/classes/dev/elector/demo/LocalServiceAccount.class || ! -d demo/target/lib ]]; then
  step "build the demo module (its LocalServiceAccount sets up the namespace)"
  ./mvnw -B -ntp -q package -DskipTests -pl demo -am
fi

step "start the local control plane"
bin="${ELECTOR_APISERVER_BIN:-$(bash testenv/build.sh | tail -n 1)}"
mkfifo "$work/apiserver.stdin"
"$bin" --exit-on-stdin-eof <"$work/apiserver.stdin" >"$work/apiserver.out" 2>"$work/apiserver.err" &
apiserver=$!
exec 7>"$work/apiserver.stdin"
await "$work/apiserver.out" '^ELECTOR-APISERVER-READY ' 120 "$apiserver" \
  || fail "the control plane is not ready: $(cat "$work/apiserver.err")"
admin="$(sed -n 's/.*"kubeconfig":"\([^"]*\)".*/\1/p' "$work/apiserver.out")"

step "namespace $namespace with deploy/lease/rbac.yaml; a kubeconfig for its ServiceAccount my-app"
java -cp "demo/target/classes:demo/target/lib/*" dev.elector.demo.LocalServiceAccount \
  --admin-kubeconfig "$admin" --namespace "$namespace" --rbac deploy/lease/rbac.yaml \
  --service-account my-app --out "$work/my-app.kubeconfig" 2>"$work/setup.err" | sed 's/^/   /' \
  || fail "could not set up namespace $namespace: $(tail -n 5 "$work/setup.err")"

step "two replicas of hello-leader"
for i in 0 1; do
  env POD_NAME="hello-leader-$i" POD_NAMESPACE="$namespace" KUBECONFIG="$work/my-app.kubeconfig" \
    java -Xmx128m -cp "$here/target/classes:$here/target/lib/*" \
    dev.elector.examples.hello.HelloLeader >"$work/replica-$i.log" 2>&1 &
  pid[$i]=$!
done
declare -A id=()
for i in 0 1; do
  await "$work/replica-$i.log" ' is a candidate for ' 60 "${pid[$i]}" || fail "replica $i did not start"
  id[$i]="$(field "$work/replica-$i.log" '\(.*\) is a candidate for .*')"
  echo "   replica $i: ${id[$i]}"
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

step "SIGKILL the leader, replica $leader"
killed_at=$(date +%s.%N)
kill -KILL "${pid[$leader]}"
wait "${pid[$leader]}" 2>/dev/null || true
await "$work/replica-$follower.log" "${id[$follower]} started leading " 60 "${pid[$follower]}" \
  || fail "replica $follower did not take over within 60 s of the SIGKILL"
took="$(awk -v a="$killed_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
await "$work/replica-$follower.log" "${id[$follower]} works: step 1\$" 10 "${pid[$follower]}" \
  || fail "the new leader does not work"
second_token="$(field "$work/replica-$follower.log" '.* started leading (fencing token \([0-9]*\))')"
[[ "$second_token" -gt "$first_token" ]] \
  || fail "fencing token $second_token of the new term is not larger than $first_token"
echo "   replica $follower took over ${took} s after the SIGKILL (fencing token $second_token)"

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
echo "hello-leader-ci: PASS elector $version from the local repository; one leader of two; takeover ${took} s after SIGKILL; clean close on SIGTERM"
