#!/usr/bin/env bash
# Smoke test of elector-apiserver against freshly started instances.
# Usage: smoke.sh [BINARY]   (default: the binary build.sh builds or finds)
# Needs bash, curl, base64. Exits non-zero on the first failed check.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-$("$here/build.sh" | tail -n1)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/elector-smoke.XXXXXX")"
pid=""

cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "ok   $*"; }
die() {
  echo "FAIL $*" >&2
  [[ -s "$work/err" ]] && sed 's/^/     stderr: /' "$work/err" >&2
  exit 1
}
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }

# start ARGS...: starts the binary in the background and waits for its ready
# line; sets pid, ready, server, data.
start() {
  : >"$work/out"
  : >"$work/err"
  "$bin" "$@" >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 1200); do
    grep -q '^ELECTOR-APISERVER-READY ' "$work/out" && break
    kill -0 "$pid" 2>/dev/null || die "process exited before it was ready"
    sleep 0.1
  done
  ready="$(grep '^ELECTOR-APISERVER-READY ' "$work/out")" || die "no ready line within 120 s"
  server="$(field server "$ready")"
  data="$(field dataDir "$ready")"
  [[ "$server" =~ ^https://127\.0\.0\.1:[0-9]+$ ]] || die "bad server in ready line: $ready"
  [[ -d "$data" ]] || die "data dir $data missing"
  # Credentials are taken from the kubeconfig, which tests it as well.
  local kc="$data/admin.kubeconfig"
  for f in certificate-authority-data:ca.crt client-certificate-data:admin.crt client-key-data:admin.key; do
    sed -n "s/^ *${f%%:*}: //p" "$kc" | base64 -d >"$work/${f#*:}"
  done
  grep -q "server: $server\$" "$kc" || die "kubeconfig does not point at $server"
  echo "     started pid $pid: $ready"
}

# stop: SIGTERM, expect exit 0 within 60 s.
stop() {
  kill -TERM "$pid"
  local rc=0
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && die "still running 60 s after SIGTERM"
  wait "$pid" || rc=$?
  pid=""
  [[ $rc -eq 0 ]] || die "exit code $rc after SIGTERM"
  [[ $(wc -l <"$work/out") -eq 1 ]] || die "stdout has more than the ready line: $(cat "$work/out")"
}

# api METHOD PATH [BODY] [curl auth args...]: prints the HTTP status, body in $work/body.
api() {
  local method=$1 path=$2 body=${3:-}
  shift 3 || shift $#
  local auth=("$@")
  [[ ${#auth[@]} -gt 0 ]] || auth=(--cert "$work/admin.crt" --key "$work/admin.key")
  local args=(-sS -o "$work/body" -w '%{http_code}' --cacert "$work/ca.crt" -X "$method" "${auth[@]}")
  if [[ -n "$body" ]]; then
    args+=(-H 'Content-Type: application/json' --data-binary "$body")
  fi
  curl "${args[@]}" "$server$path"
}
expect() { # expect STATUS DESCRIPTION METHOD PATH [BODY] [auth...]
  local want=$1 what=$2 got
  shift 2
  got="$(api "$@")"
  [[ "$got" == "$want" ]] || die "$what: HTTP $got, want $want: $(head -c 400 "$work/body")"
  pass "$what ($got)"
}
eventually() { # eventually STATUS DESCRIPTION METHOD PATH [BODY] [auth...]: retries for 15 s
  local want=$1 what=$2 got
  shift 2
  for _ in $(seq 1 150); do
    got="$(api "$@")"
    [[ "$got" == "$want" ]] && { pass "$what ($got)"; return; }
    sleep 0.1
  done
  die "$what: HTTP $got, want $want: $(head -c 400 "$work/body")"
}
rv() { sed -n 's/.*"resourceVersion": *"\([0-9]*\)".*/\1/p' "$work/body" | head -n1; }
lease() { # lease NS NAME HOLDER [RV]
  local meta="\"name\":\"$2\",\"namespace\":\"$1\""
  [[ -n "${4:-}" ]] && meta+=",\"resourceVersion\":\"$4\""
  echo "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{$meta},\"spec\":{\"holderIdentity\":\"$3\",\"leaseDurationSeconds\":15}}"
}

echo "binary: $bin"

# --- 1. a fresh instance in a temp dir ---------------------------------------
start
[[ "$(api GET /readyz)" == 200 && "$(cat "$work/body")" == ok ]] || die "/readyz not ok"
pass "/readyz ok"
version="$(field version "$ready")"
[[ "$version" =~ ^v1\.[0-9]+\.[0-9]+$ ]] || die "ready line version '$version' is not a release"
expect 200 "/version" GET /version
grep -q "\"gitVersion\": *\"$version\"" "$work/body" || die "/version does not report $version: $(cat "$work/body")"
pass "/version reports $version"

users="$(field users "$ready")"
token="$(sed -n 's/.*"token": *"\([^"]*\)".*/\1/p' "$users" | head -n1)"
uname="$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$users" | head -n1)"
[[ -n "$token" && "$uname" == restricted-1 ]] || die "users.json has no restricted-1 with a token"
restricted=(-H "Authorization: Bearer $token")

for ns in smoke-a smoke-b; do
  expect 201 "create namespace $ns" POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}"
  expect 201 "create lease in $ns" POST /apis/coordination.k8s.io/v1/namespaces/$ns/leases "$(lease $ns smoke admin)"
done
leases=/apis/coordination.k8s.io/v1/namespaces

expect 403 "restricted user before RoleBinding" GET $leases/smoke-a/leases/smoke "" "${restricted[@]}"
expect 201 "create Role" POST /apis/rbac.authorization.k8s.io/v1/namespaces/smoke-a/roles \
  '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"lease-editor"},"rules":[{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","list","watch","create","update","patch"]}]}'
expect 201 "create RoleBinding" POST /apis/rbac.authorization.k8s.io/v1/namespaces/smoke-a/rolebindings \
  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"lease-editor\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"lease-editor\"},\"subjects\":[{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"User\",\"name\":\"$uname\"}]}"
eventually 200 "restricted user after RoleBinding" GET $leases/smoke-a/leases/smoke "" "${restricted[@]}"
old_rv="$(rv)"
expect 200 "restricted user updates the lease" PUT $leases/smoke-a/leases/smoke "$(lease smoke-a smoke restricted "$old_rv")" "${restricted[@]}"
expect 409 "PUT with a stale resourceVersion" PUT $leases/smoke-a/leases/smoke "$(lease smoke-a smoke stale "$old_rv")" "${restricted[@]}"
expect 403 "restricted user in another namespace" GET $leases/smoke-b/leases/smoke "" "${restricted[@]}"

expect 201 "install CRD" POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions \
  '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.smoke.elector.dev"},"spec":{"group":"smoke.elector.dev","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}'
for _ in $(seq 1 150); do
  api GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.smoke.elector.dev >/dev/null
  tr -d ' \n' <"$work/body" | grep -q '"type":"Established","status":"True"' && break
  sleep 0.1
done
tr -d ' \n' <"$work/body" | grep -q '"type":"Established","status":"True"' || die "CRD not Established within 15 s"
pass "CRD Established"
eventually 201 "create custom resource" POST /apis/smoke.elector.dev/v1/namespaces/smoke-a/widgets \
  '{"apiVersion":"smoke.elector.dev/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}}'

expect 201 "create ServiceAccount" POST /api/v1/namespaces/smoke-a/serviceaccounts \
  '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"smoke-sa"}}'
expect 201 "TokenRequest" POST /api/v1/namespaces/smoke-a/serviceaccounts/smoke-sa/token \
  '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}'
sa_token="$(sed -n 's/.*"token": *"\([^"]*\)".*/\1/p' "$work/body")"
[[ -n "$sa_token" ]] || die "TokenRequest returned no token"
expect 201 "SelfSubjectReview with the ServiceAccount token" POST /apis/authentication.k8s.io/v1/selfsubjectreviews \
  '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' -H "Authorization: Bearer $sa_token"
grep -q '"username": *"system:serviceaccount:smoke-a:smoke-sa"' "$work/body" || die "token is not smoke-sa: $(cat "$work/body")"
pass "ServiceAccount token authenticates as system:serviceaccount:smoke-a:smoke-sa"

stop
[[ ! -e "$data" ]] || die "data dir $data still exists after exit"
pass "SIGTERM: exit 0, data dir removed"

# --- 2. restart with kept data: same port, same CA, same etcd data -----------
kept="$work/kept"
start --data-dir "$kept" --keep-data
port="${server##*:}"
cp "$work/ca.crt" "$work/first-ca.crt"
expect 201 "create namespace (kept)" POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kept"}}'
expect 201 "create lease (kept)" POST $leases/kept/leases "$(lease kept survivor before-restart)"
stop
[[ -d "$kept/etcd" ]] || die "--keep-data removed the data dir"
pass "--keep-data keeps the data dir"
start --data-dir "$kept" --keep-data --port "$port"
[[ "$server" == "https://127.0.0.1:$port" ]] || die "restart is on $server, not port $port"
cmp -s "$work/ca.crt" "$work/first-ca.crt" || die "CA changed across restart"
curl -sS -o /dev/null --cacert "$work/first-ca.crt" --cert "$work/admin.crt" --key "$work/admin.key" "$server/readyz" ||
  die "old CA does not verify the restarted server"
expect 200 "lease survives restart" GET $leases/kept/leases/survivor
grep -q '"holderIdentity": *"before-restart"' "$work/body" || die "lease content lost: $(cat "$work/body")"
stop

# --- 3. --exit-on-stdin-eof --------------------------------------------------
mkfifo "$work/stdin"
"$bin" --exit-on-stdin-eof <"$work/stdin" >"$work/out" 2>"$work/err" &
pid=$!
exec 7>"$work/stdin"
for _ in $(seq 1 1200); do grep -q '^ELECTOR-APISERVER-READY ' "$work/out" && break; sleep 0.1; done
grep -q '^ELECTOR-APISERVER-READY ' "$work/out" || die "no ready line (stdin EOF run)"
data="$(field dataDir "$(cat "$work/out")")"
exec 7>&-
rc=0
for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && die "still running 60 s after stdin EOF"
wait "$pid" || rc=$?
pid=""
[[ $rc -eq 0 && ! -e "$data" ]] || die "stdin EOF: exit code $rc, data dir present: $([[ -e $data ]] && echo yes || echo no)"
pass "stdin EOF: exit 0, data dir removed"

echo "smoke test passed"
