#!/usr/bin/env bash
# Proves that elector-quarkus works as published, from outside Elector's build: installs the
# library, builds examples/quarkus-leader (a Quarkus application of its own: the Quarkus BOM
# 3.33.2 and elector-bom imported, no other version named) against the version just installed, in
# JVM mode (fast-jar), and checks that it resolves one fabric8 version, 7.x, the one Quarkus
# manages. It sends each object of the target/kubernetes/kubernetes.yml that quarkus-kubernetes
# generated (with elector-quarkus' POD_NAME, POD_NAMESPACE, Role and RoleBinding) to the local
# control plane as a server-side dry run with strict field validation, and checks that the
# ServiceAccount, Role, RoleBinding and Deployment are accepted. Then it runs two replicas on the local control plane, each as the ServiceAccount of the
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
# dry_run_manifests NS FILE: creates namespace NS, then sends each object of FILE (YAML documents)
# to the control plane as the admin, ?dryRun=All&fieldValidation=Strict, and prints what the API
# server accepted; fails unless a ServiceAccount, a Role, a RoleBinding and a Deployment are among
# them. Kinds it has no path for are listed as not checked.
dry_run_manifests() {
  python3 - "$admin" "$1" "$2" "$work" <<'PY'
import base64, json, re, ssl, sys, urllib.error, urllib.request
kubeconfig, namespace, manifest, work = sys.argv[1:5]
config = open(kubeconfig).read()
def field(key):
    return re.search(r"^\s*" + key + r":\s*(\S+)\s*$", config, re.M).group(1)
server = field("server")
files = {}
for key in ("certificate-authority-data", "client-certificate-data", "client-key-data"):
    files[key] = f"{work}/{key}.pem"
    with open(files[key], "wb") as out:
        out.write(base64.b64decode(field(key)))
context = ssl.create_default_context(cafile=files["certificate-authority-data"])
context.load_cert_chain(files["client-certificate-data"], files["client-key-data"])
def send(path, body, content_type):
    request = urllib.request.Request(server + path, data=body, method="POST",
                                     headers={"Content-Type": content_type, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")
status, answer = send("/api/v1/namespaces", json.dumps(
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}).encode(), "application/json")
if status != 201:
    sys.exit(f"namespace {namespace}: HTTP {status} {answer.get('message')}")
paths = {
    ("v1", "ServiceAccount"): "/api/v1/namespaces/{}/serviceaccounts",
    ("v1", "Service"): "/api/v1/namespaces/{}/services",
    ("rbac.authorization.k8s.io/v1", "Role"): "/apis/rbac.authorization.k8s.io/v1/namespaces/{}/roles",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): "/apis/rbac.authorization.k8s.io/v1/namespaces/{}/rolebindings",
    ("apps/v1", "Deployment"): "/apis/apps/v1/namespaces/{}/deployments",
}
accepted = set()
for document in re.split(r"^---\s*$", open(manifest).read(), flags=re.M):
    kind = re.search(r"^kind:\s*(\S+)", document, re.M)
    api = re.search(r"^apiVersion:\s*(\S+)", document, re.M)
    if not kind or not api:
        continue
    kind, api = kind.group(1), api.group(1)
    path = paths.get((api, kind))
    if path is None:
        name = re.search(r"^  name:\s*(\S+)", document, re.M)
        print(f"   not checked: {kind} {name.group(1) if name else '?'} ({api}; not one of the kinds checked here)")
        continue
    status, answer = send(path.format(namespace) + "?dryRun=All&fieldValidation=Strict",
                          document.encode(), "application/yaml")
    if status != 201:
        sys.exit(f"{kind}: HTTP {status} {answer.get('message')}")
    name = answer["metadata"]["name"]
    detail = ""
    if kind == "Role":
        detail = "; rules: " + "; ".join(
            f"{'/'.join(r.get('apiGroups', [])) or 'core'} {','.join(r['resources'])}"
            + (f" [{','.join(r['resourceNames'])}]" if r.get("resourceNames") else "")
            + f" {','.join(r['verbs'])}" for r in answer["rules"])
    elif kind == "RoleBinding":
        detail = "; " + ", ".join(f"{s['kind']} {s['name']}" for s in answer["subjects"]) \
            + f" -> {answer['roleRef']['kind']} {answer['roleRef']['name']}"
    elif kind == "Deployment":
        pod = answer["spec"]["template"]["spec"]
        env = [f"{e['name']}<-{e['valueFrom']['fieldRef']['fieldPath']}"
               for c in pod["containers"] for e in c.get("env", [])
               if e["name"].startswith("POD_") and "fieldRef" in e.get("valueFrom", {})]
        detail = f"; serviceAccountName {pod.get('serviceAccountName')}, env {', '.join(env)}"
    print(f"   accepted (dry run, strict): {kind} {name}{detail}")
    accepted.add(kind)
missing = {"ServiceAccount", "Role", "RoleBinding", "Deployment"} - accepted
if missing:
    sys.exit("no " + ", ".join(sorted(missing)) + " accepted from " + manifest)
PY
}
# seconds_since T0: seconds from T0 (date +%s.%N) to now, one decimal.
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

for tool in java curl python3; do command -v "$tool" >/dev/null || fail "$tool is not on PATH"; done
version="$(elector_version)"

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

manifests="$here/target/kubernetes/kubernetes.yml"
step "server-side dry run of ${manifests#"$root"/} in namespace $namespace-manifests (dryRun=All, fieldValidation=Strict)"
[[ -f "$manifests" ]] || fail "quarkus-kubernetes wrote no ${manifests#"$root"/}"
dry_run_manifests "$namespace-manifests" "$manifests" || fail "the API server refused ${manifests#"$root"/}"

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
echo "quarkus-leader-ci: PASS elector $version with Quarkus 3.33.2 on fabric8 $fabric8_version (jackson-databind $jackson), JVM mode; kubernetes.yml accepted by a strict dry run; one leader of two, /q/health and /q/metrics name it; takeover ${kill_took} s after SIGKILL, ${term_took} s after SIGTERM; $((SECONDS - started)) s in all"
