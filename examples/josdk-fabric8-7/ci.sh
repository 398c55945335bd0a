#!/usr/bin/env bash
# Proves that elector-fabric8 works on the fabric8 that the Java Operator SDK 5.2 brings (7.x, with
# Jackson 2), from outside Elector's build: installs the library, builds examples/josdk-fabric8-7
# (a project of its own: elector-bom imported, operator-framework 5.2.3 and elector-fabric8, no
# fabric8 version named) against the version just installed, and checks that Maven resolves one
# fabric8 version, 7.x, and no Jackson 3. Then it runs the operator on the local control plane, as
# the ServiceAccount of the example's rbac.yaml, until it has built its client, leads, has started
# a JOSDK operator for its term and reconciled the ConfigMap it wrote; SIGTERM then ends the term
# and closes the elector. Every wait is bounded and ends on a log line.
#   examples/josdk-fabric8-7/ci.sh     (ELECTOR_APISERVER_BIN: the control plane binary; built
#                                       with testenv/build.sh when unset)
# Prints "josdk-fabric8-7-ci: PASS ..." or "josdk-fabric8-7-ci: FAIL ..." and exits non-zero on
# failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/examples/josdk-fabric8-7"
cd "$root"
# step, await, field, start_control_plane, stop_control_plane, service_account
source "$root/examples/ci-lib.sh"

namespace=josdk-fabric8-7
main_class=dev.elector.examples.josdk7.OperatorOnFabric8Seven
work="$(mktemp -d "${TMPDIR:-/tmp}/josdk-fabric8-7-ci.XXXXXX")"
operator=""
apiserver=""
status=1
problems=()
started=$SECONDS

cleanup() {
  [[ -n "$operator" ]] && kill -KILL "$operator" 2>/dev/null || true
  stop_control_plane
  if [[ $status == 0 ]]; then rm -rf "$work"; else echo "josdk-fabric8-7-ci: logs kept in $work"; fi
}
trap cleanup EXIT
trap 'fail "line $LINENO: $BASH_COMMAND exited with $?"' ERR

fail() {
  echo "josdk-fabric8-7-ci: FAIL $*"
  for problem in "${problems[@]}"; do echo "josdk-fabric8-7-ci: FAIL $problem"; done
  if [[ -f "$work/operator.log" ]]; then
    echo "--- the operator's exceptions, then its last lines ($work/operator.log)"
    grep -E '^(Exception in thread|Caused by:)' "$work/operator.log" | head -n 5 || true
    tail -n 15 "$work/operator.log"
  fi
  exit 1
}

command -v java >/dev/null || fail "java is not on PATH"
version="$(elector_version)"

step "install elector $version (elector-bom, elector-fabric8 and what they need)"
./mvnw -B -ntp -q install -DskipTests -pl libraries/elector-bom,libraries/elector-fabric8 -am

step "build examples/josdk-fabric8-7 against elector $version (operator-framework 5.2.3, no fabric8 version named)"
rm -rf "$here/target"
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" package
./mvnw -B -ntp -q -f "$here/pom.xml" -Delector.version="$version" dependency:list \
  -DoutputFile="$work/dependencies.txt" -DincludeGroupIds=io.fabric8,com.fasterxml.jackson.core,tools.jackson.core
sed -n 's/^ *\([^ ]*\).*/\1/p' "$work/dependencies.txt" | grep ':' | sort >"$work/resolved.txt" || true

step "one fabric8 version on the class path: 7.x from JOSDK, no 8.x, no Jackson 3"
fabric8_versions="$(awk -F: '$1 == "io.fabric8" { print $4 }' "$work/resolved.txt" | sort -u | tr '\n' ' ')"
fabric8_count="$(awk -F: '$1 == "io.fabric8"' "$work/resolved.txt" | wc -l)"
echo "   mvn dependency:list: $fabric8_count io.fabric8 artifacts, versions: ${fabric8_versions% }"
[[ "$fabric8_count" -gt 0 ]] || fail "mvn dependency:list shows no io.fabric8 artifact"
[[ "$fabric8_versions" =~ ^7\.[0-9.]+\ $ ]] \
  || problems+=("the example resolves fabric8 ${fabric8_versions% }, want one 7.x version: $(grep -v ':7\.' "$work/resolved.txt" | grep '^io.fabric8' | tr '\n' ' ')")
fabric8_version="${fabric8_versions% }"
jackson3="$(grep '^tools.jackson' "$work/resolved.txt" | tr '\n' ' ' || true)"
[[ -z "$jackson3" ]] || problems+=("the example resolves Jackson 3: $jackson3")
jackson2="$(awk -F: '$1 == "com.fasterxml.jackson.core" && $2 == "jackson-databind" { print $4 }' "$work/resolved.txt")"
echo "   Jackson: jackson-databind ${jackson2:-none}${jackson3:+, and Jackson 3: $jackson3}"
lib_versions="$(cd "$here/target/lib" && ls kubernetes-*.jar zjsonpatch-*.jar | sed -E 's/.*-([0-9][^-]*)\.jar$/\1/' | sort -u | tr '\n' ' ')"
[[ "$lib_versions" == "$fabric8_version " ]] \
  || problems+=("the runtime class path target/lib holds fabric8 jars of ${lib_versions% }")
elector_jars="$(cd "$here/target/lib" && ls elector-*.jar | tr '\n' ' ')"
echo "   target/lib: fabric8 ${lib_versions% }; Elector: ${elector_jars% }"

start_control_plane
service_account "$namespace" "$here/rbac.yaml" my-operator "$work/my-operator.kubeconfig"

step "run the operator: java -cp target/classes:target/lib/* $main_class"
run_started=$SECONDS
env POD_NAME=josdk-fabric8-7-0 POD_NAMESPACE="$namespace" KUBECONFIG="$work/my-operator.kubeconfig" \
  JAVA_TOOL_OPTIONS=-Xmx256m java -cp "$here/target/classes:$here/target/lib/*" "$main_class" \
  >"$work/operator.log" 2>&1 &
operator=$!
await "$work/operator.log" ' - fabric8 kubernetes-client ' 60 "$operator" \
  || fail "the operator did not build its fabric8 client"
echo "   $(field "$work/operator.log" '\(fabric8 kubernetes-client .*\)')"
await "$work/operator.log" ' is a candidate for ' 30 "$operator" || fail "the operator did not start its elector"
id="$(field "$work/operator.log" '\(.*\) is a candidate for .*')"
await "$work/operator.log" "$id started leading " 60 "$operator" || fail "$id did not lead within 60 s"
token="$(field "$work/operator.log" '.* started leading (fencing token \([0-9]*\))')"
await "$work/operator.log" "$id started the operator for term $token\$" 60 "$operator" \
  || fail "$id did not start its JOSDK operator for term $token"
await "$work/operator.log" "reconciled ConfigMap term-$token \\(term $token\\)\$" 30 "$operator" \
  || fail "the operator did not reconcile the ConfigMap term-$token"
led_in=$((SECONDS - run_started))
echo "   $id leads (fencing token $token), its JOSDK operator reconciled ConfigMap term-$token, ${led_in} s after the start"
! grep -q 'NoSuchMethodError' "$work/operator.log" || fail "the operator's log has a NoSuchMethodError"

step "SIGTERM: the term ends, the operator stops, the elector closes"
kill -TERM "$operator"
await "$work/operator.log" "$id closed\$" 30 "$operator" || fail "the operator did not close after SIGTERM"
grep -q "$id stopped leading: " "$work/operator.log" || fail "the operator closed without ending its term"
wait "$operator" || true
operator=""

[[ ${#problems[@]} == 0 ]] || fail "the run passed, but the dependencies do not"
status=0
echo "josdk-fabric8-7-ci: PASS elector $version with JOSDK 5.2.3 on fabric8 $fabric8_version (jackson-databind $jackson2), the only fabric8 resolved; client built, led (fencing token $token) and reconciled under the term ${led_in} s after the start; clean close on SIGTERM; $((SECONDS - started)) s in all"
