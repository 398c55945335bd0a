#!/usr/bin/env bash
# The newcomer's path, timed: from a fresh clone to a leader-elected hello app, running exactly the
# commands of docs/getting-started.md that carry a <!-- newcomer: NAME --> marker, in order, as
# written there (read from the clone, never copied here). A cluster is the one thing the guide
# assumes; the local control plane stands in for it (testenv/local-cluster.sh, as the guide says).
#
# A step named "background NAME" is a process the guide runs in a terminal of its own: it is
# started in the background and keeps running. A step after a background step is retried until it
# succeeds (at most 60 s), as a reader would run it again until the replicas are up. After the
# last step the leader is stopped as the guide's Ctrl-C stops it, and the other must take over: a
# background job ignores SIGINT, so it gets SIGTERM, which the JVM's shutdown hooks handle alike.
#
#   checks/newcomer-path.sh       prints one line a step with its time, then
#                                 "newcomer-path: PASS ..." or "newcomer-path: FAIL ..."
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/newcomer-path.XXXXXX")"
guide=docs/getting-started.md
declare -a background=()
cluster=""
status=1

cleanup() {
  for pgid in "${background[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null || true; done
  if [[ -n "$cluster" ]]; then kill -TERM "$cluster" 2>/dev/null || true; wait "$cluster" 2>/dev/null || true; fi
  if [[ $status == 0 ]]; then rm -rf "$work"; else echo "newcomer-path: logs kept in $work"; fi
}
trap cleanup EXIT
fail() {
  echo "newcomer-path: FAIL $*"
  for log in "$work"/step-*.log; do [[ -f "$log" ]] && { echo "--- last lines of $log"; tail -n 12 "$log"; }; done
  exit 1
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

start=$(now)
echo "== a fresh clone of $(git -C "$root" rev-parse --short HEAD)"
git clone -q "$root" "$work/elector"
clone="$work/elector"
cd "$clone"
[[ -f "$guide" ]] || fail "$guide is missing from the clone"

echo "== the cluster: testenv/local-cluster.sh (the local control plane)"
export KUBECONFIG="$work/kubeconfig"
testenv/local-cluster.sh --kubeconfig "$KUBECONFIG" >"$work/cluster.log" 2>&1 &
cluster=$!
deadline=$((SECONDS + 600))
until [[ -s "$KUBECONFIG" ]]; do
  kill -0 "$cluster" 2>/dev/null || fail "the local control plane did not start: $(tail -n 5 "$work/cluster.log")"
  [[ $SECONDS -lt $deadline ]] || fail "the local control plane was not ready within 600 s"
  sleep 0.2
done
echo "   ready after $(since "$start") s (outside the newcomer's time: a reader brings a cluster)"

# The marked blocks: "NAME<TAB>first line<TAB>last line" of each fence after a marker.
mapfile -t steps < <(awk '
  /^<!-- newcomer: .* -->$/ { name = $0; sub(/^<!-- newcomer: /, "", name); sub(/ -->$/, "", name); marked = NR; next }
  /^```sh$/ && marked == NR - 1 { first = NR + 1; inside = 1; next }
  /^```$/ && inside { print name "\t" first "\t" NR - 1; inside = 0; next }
' "$guide")
[[ ${#steps[@]} -ge 5 ]] || fail "$guide marks ${#steps[@]} newcomer steps; expected the install, Role, build, two replicas and a check"

path_start=$(now)
n=0
after_background=false
for step in "${steps[@]}"; do
  IFS=$'\t' read -r name first last <<<"$step"
  n=$((n + 1))
  script="$(sed -n "${first},${last}p" "$guide")"
  log="$work/step-$n.log"
  t=$(now)
  if [[ "$name" == background\ * ]]; then
    setsid bash -c "$script" >"$log" 2>&1 &
    background+=($!)
    echo "   step $n, ${name#background }: started in the background ($guide lines $first-$last)"
    after_background=true
    continue
  fi
  if $after_background; then
    deadline=$((SECONDS + 60))
    until bash -euo pipefail -c "$script" >"$log" 2>&1; do
      [[ $SECONDS -lt $deadline ]] || fail "step $n ($name) still fails after 60 s: $(tail -n 3 "$log")"
      sleep 0.5
    done
  else
    bash -euo pipefail -c "$script" >"$log" 2>&1 || fail "step $n ($name) failed: $(tail -n 5 "$log")"
  fi
  echo "   step $n, $name: $(since "$t") s"
done

# Exactly one replica leads, and the Lease names it.
# Each replica logs that it is a candidate once its JVM is up; on a busy machine one may come up
# seconds after the other has already been elected, so wait for both as a reader would.
leader=""
deadline=$((SECONDS + 60))
while :; do
  logs=()
  for f in "$work"/step-*.log; do grep -q ' is a candidate for ' "$f" && logs+=("$f"); done
  [[ ${#logs[@]} -lt 2 && $SECONDS -lt $deadline ]] || break
  sleep 0.1
done
[[ ${#logs[@]} -eq 2 ]] || fail "expected two replicas' logs within 60 s, found ${#logs[@]}"
deadline=$((SECONDS + 60))
while [[ -z "$leader" ]]; do
  for i in 0 1; do grep -q ' started leading ' "${logs[$i]}" && leader=$i; done
  [[ -n "$leader" || $SECONDS -lt $deadline ]] || fail "no replica leads within 60 s"
  [[ -n "$leader" ]] || sleep 0.1
done
elected=$(since "$path_start")
other=$((1 - leader))
grep -q ' started leading ' "${logs[$other]}" && fail "both replicas lead"
holder="$(kubectl get lease elector-leader -n hello-leader -o jsonpath='{.spec.holderIdentity}')"
grep -qF "$holder is a candidate for" "${logs[$leader]}" || fail "the Lease names '$holder', not the replica that logs that it leads"
echo "   one replica leads: $holder"

echo "== stop the leader as Ctrl-C does (SIGTERM: a background job ignores SIGINT)"
t=$(now)
kill -TERM -- "-${background[$leader]}"
deadline=$((SECONDS + 30))
until grep -q ' started leading ' "${logs[$other]}"; do
  [[ $SECONDS -lt $deadline ]] || fail "the other replica did not take over within 30 s of the leader's stop"
  sleep 0.05
done
handover=$(since "$t")
deadline=$((SECONDS + 30))
until grep -q ' closed$' "${logs[$leader]}"; do
  [[ $SECONDS -lt $deadline ]] || fail "the old leader did not close within 30 s"
  sleep 0.05
done

status=0
echo "newcomer-path: PASS fresh clone to a leader-elected hello app in ${elected} s with the commands of $guide ($n steps); hand-over when the leader stops ${handover} s"
