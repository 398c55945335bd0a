# The Greeting operator's scenario, shared by the two operator examples' ci.sh
# (examples/josdk-operator, examples/qosdk-operator), which source it after ci-lib.sh. The script
# that sources it defines work, namespace, admin (ci-lib.sh's start_control_plane), lease_ms, the
# arrays pid and id, and launch I (starts replica I, logging to $work/replica-I.log, and sets
# pid[I] and id[I]). greeting_scenario leaves first_token, kill_ms, kill_reconciled_ms and term_ms
# for the PASS line.

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

# greeting_scenario: two replicas, exactly one leads and writes; SIGKILL of the leader: the other
# leads with a larger token and reconciles a Greeting created meanwhile; a third replica follows;
# SIGTERM of the leader: its operator stops and it releases the Lease before the third leads.
greeting_scenario() {
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
}
