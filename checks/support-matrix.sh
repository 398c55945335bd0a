#!/usr/bin/env bash
# The support matrix: runs the tests that prove each supported line of Elector's dependencies
# (client-java, fabric8, the Java Operator SDK, Spring Boot, Quarkus, the JDK, the Kubernetes API
# server) against that line, one cell per version, and writes the table of what ran into
# docs/support-matrix.md. Every cell is a run: a module's unit and integration tests (the lock
# contract suite on the real API server for the clients), built against the cell's version. A
# Kubernetes cell runs the lock contract suites' integration tests on that release's kube-apiserver
# (testenv/build-k8s.sh builds it once, about 6 minutes on 2 cores) and checks that every API
# server the tests started reported that release.
#
#   checks/support-matrix.sh            every cell (about an hour on 2 cores; not part of test.sh)
#   checks/support-matrix.sh CELL...    only those cells, by name (e.g. boot-4.1.2 jdk-25 k8s-1.36.3)
#   checks/support-matrix.sh --list     the cells
#   checks/support-matrix.sh --table    only rewrite the table from the results kept in MATRIX_WORK
#
# It works in a clone of the current commit with a Maven repository of its own (a copy of
# ~/.m2/repository, into which it first installs the commit), so the working tree and ~/.m2 are not
# touched. A cell whose artifacts cannot be downloaded is reported as such, not as a failure.
# Environment: ELECTOR_APISERVER_BIN (else testenv/build.sh builds it; the Kubernetes cells use
# their own release's binary instead), JDK25_HOME (default
# /usr/lib/jvm/temurin-25-jdk-amd64), MATRIX_WORK (default /tmp/elector-support-matrix),
# MATRIX_REUSE=1 (run in the clone and repository of the previous run, at its commit: no clone,
# no install).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${MATRIX_WORK:-/tmp/elector-support-matrix}"
jdk25="${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"

# name | line | version | module | Maven arguments | a jar the tests' class path must hold | what it shows
# (the lines other than those the build itself uses first; ./test.sh runs those on every change)
# A kubernetes cell's version is the release of kube-apiserver; its modules' unit tests, which use
# no API server, are left out.
k8s_modules="elector-k8s-lease,elector-configmap,libraries/elector-fabric8"
k8s_args="-Dtest=none -Dsurefire.failIfNoSpecifiedTests=false"
k8s_proves="the Lease and ConfigMap locks' integration tests on client-java and on fabric8 8 (contract suites, watches, events, coordinated leases)"
cells=(
  "client-java-24.0.0|client-java|24.0.0|elector-k8s-lease|-Dkubernetes-client-java.version=24.0.0|client-java-24.0.0.jar|the lock contract suite, built and run on client-java 24"
  "fabric8-7.9.0|fabric8|7.9.0|compat/elector-fabric8-on-7|-Dfabric8-7.version=7.9.0|kubernetes-client-api-7.9.0.jar|the lock contract suite on the newest fabric8 7"
  "fabric8-7.3.1|fabric8|7.3.1|compat/elector-fabric8-on-7|-Dfabric8-7.version=7.3.1|kubernetes-client-api-7.3.1.jar|the lock contract suite on the oldest fabric8 7 served"
  "josdk-5.1.5|josdk|5.1.5|integrations/elector-josdk|-Djosdk.version=5.1.5|operator-framework-core-5.1.5.jar|elector-josdk's tests and operator ITs on JOSDK 5.1 (with the fabric8 7.5.2 the module pins)"
  "josdk-5.0.4|josdk|5.0.4|integrations/elector-josdk|-Djosdk.version=5.0.4|operator-framework-core-5.0.4.jar|elector-josdk's tests and operator ITs on JOSDK 5.0 (with the fabric8 7.5.2 the module pins)"
  "quarkus-3.34.1|quarkus|3.34.1|integrations/elector-quarkus/deployment|-Dquarkus.version=3.34.1|quarkus-core-3.34.1.jar|the extension's tests on Quarkus 3.34"
  "jdk-25|jdk|25|elector-core,elector-k8s-lease|-Djvm=$jdk25/bin/java||the same tests, the jars as published (Java 17 bytecode) run on JDK 25"
  "k8s-1.36.3|kubernetes|1.36.3|$k8s_modules|$k8s_args||$k8s_proves on kube-apiserver 1.36.3 with the etcd it pins, 3.6.8"
  "k8s-1.35.4|kubernetes|1.35.4|$k8s_modules|$k8s_args||$k8s_proves on kube-apiserver 1.35.4 with the etcd it pins, 3.6.5"
  "k8s-1.34.4|kubernetes|1.34.4|$k8s_modules|$k8s_args||$k8s_proves on kube-apiserver 1.34.4 with the etcd it pins, 3.6.4"
  "client-java-25.0.0|client-java|25.0.0|elector-k8s-lease||client-java-25.0.0.jar|the lock contract suite, Lease and shared watch (the version built against)"
  "fabric8-8.0.0|fabric8|8.0.0|libraries/elector-fabric8||kubernetes-client-api-8.0.0.jar|the lock contract suite on fabric8 8 (the version built against)"
  "fabric8-7.5.2|fabric8|7.5.2|compat/elector-fabric8-on-7||kubernetes-client-api-7.5.2.jar|the lock contract suite on fabric8 7.5.2 (JOSDK 5.2's and Quarkus 3.33's)"
  "josdk-5.2.3|josdk|5.2.3|integrations/elector-josdk||operator-framework-core-5.2.3.jar|elector-josdk's tests and operator ITs (the version built against)"
  "boot-4.0.7|spring-boot|4.0.7|integrations/elector-spring-boot-autoconfigure||spring-boot-4.0.7.jar|the context tests and the API-server test (the version built against)"
  "boot-4.1.2|spring-boot|4.1.2|compat/elector-spring-boot-on-4-1||spring-boot-4.1.2.jar|the same tests on Boot 4.1"
  "boot-3.5.7|spring-boot|3.5.7|compat/elector-spring-boot-on-3||spring-boot-3.5.7.jar|the same tests, and Boot 3.5's health endpoint"
  "quarkus-3.33.2|quarkus|3.33.2|integrations/elector-quarkus/deployment||quarkus-core-3.33.2.jar|the extension's tests on the local control plane (the version built against)"
  "jdk-17|jdk|17|elector-core,elector-k8s-lease|||the core's tests and the lock contract suite on the JDK built with"
  "k8s-1.37.2|kubernetes|1.37.2|$k8s_modules|$k8s_args||$k8s_proves on kube-apiserver 1.37.2 with etcd 3.7.0 (the release testenv pins)"
)

if [[ "${1:-}" == "--list" ]]; then
  for cell in "${cells[@]}"; do echo "${cell%%|*}"; done
  exit 0
fi
wanted=("$@")
selected() {
  [[ ${#wanted[@]} -eq 0 ]] && return 0
  local w
  for w in "${wanted[@]}"; do [[ "$w" == "$1" ]] && return 0; done
  return 1
}

write_table() {
  local table="$root/docs/support-matrix.md" order name
  {
    echo "# Support matrix"
    echo
    echo "Every row is a run of \`checks/support-matrix.sh\` on the commit it names, on this"
    echo "project's local control plane (a real kube-apiserver and etcd); the script writes this file."
    echo "A row's tests are its module's unit and integration tests, built against the row's version;"
    echo "the script checks that the row's jar was on the tests' class path and, for the JDK rows,"
    echo "which Java ran them. The lines the build itself uses also run in \`./test.sh\` on every change."
    echo "A Kubernetes row runs the integration tests of the lock modules on that release's kube-apiserver"
    echo "and etcd (\`testenv/build-k8s.sh\` builds them from the release's Go modules);"
    echo "the script checks that every API server the tests started reported that release."
    echo
    echo "| Line | Version | Module | Result | Tests | Java | Commit | Date | What it shows |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for order in "${cells[@]}"; do
      name="${order%%|*}"
      if ! grep "^$name"$'\t' "$results"; then
        IFS='|' read -r name dimension version module _ _ proves <<<"$order"
        # no empty fields: read takes a run of tabs for one
        printf '%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t%s\n' "$name" "$dimension" "$version" "$module" none "$proves"
      fi
    done | sort -t$'\t' -k2,2 -s | while IFS=$'\t' read -r name dimension version module outcome run failed skipped seconds jvm ran proves note; do
      [[ "$note" == - ]] && note=""
      case "$outcome" in
        pass) shown="passed" ;;
        unresolved) shown="not run: artifacts not downloadable here" ;;
        none) shown="not run by this script yet" ;;
        *) shown="**failed** ($failed of $run)${note:+: $note}" ;;
      esac
      # the day the cell ran: its log's date (a cell never run has none)
      day="$(date -u -r "$work/logs/$name.log" +%F 2>/dev/null || echo -)"
      [[ "$outcome" == none ]] && day=-
      echo "| $dimension | $version | \`$module\` | $shown | $run | $jvm | $ran | $day | $proves |"
    done
  } >"$table"
}

if [[ "${1:-}" == "--table" ]]; then # only rewrite docs/support-matrix.md from the results kept
  results="$work/results.tsv"
  write_table
  exit 0
fi
if [[ -z "${ELECTOR_APISERVER_BIN:-}" ]]; then
  ELECTOR_APISERVER_BIN="$(bash "$root/testenv/build.sh" | tail -n 1)"
fi
export ELECTOR_APISERVER_BIN
repo="$work/m2"
mkdir -p "$work/logs"
if [[ "${MATRIX_REUSE:-}" == 1 && -d "$work/clone" && -d "$repo" ]]; then
  cd "$work/clone"
  commit="$(git rev-parse --short HEAD)"
  echo "== reuse the clone and repository of $commit"
else
commit="$(git -C "$root" rev-parse --short HEAD)"
rm -rf "$work/clone"
git clone -q "$root" "$work/clone"
if [[ ! -d "$repo" ]]; then
  cp -r "$HOME/.m2/repository" "$repo"
fi
cd "$work/clone"
modules="$(for cell in "${cells[@]}"; do IFS='|' read -r _ _ _ module _ <<<"$cell"; echo "$module"; done | tr ',' '\n' | sort -u | paste -sd,)"
echo "== install $commit into $repo: the cells' modules and what they need"
./mvnw -B -ntp -q -Dmaven.repo.local="$repo" install -DskipTests -Djacoco.skip=true -pl "$modules" -am
fi

# One line per cell, the newest run of each; the table is rewritten after every cell, so an
# interrupted run keeps what it measured.
results="$work/results.tsv"
touch "$results"
for cell in "${cells[@]}"; do
  IFS='|' read -r name dimension version module args jar proves <<<"$cell"
  selected "$name" || continue
  log="$work/logs/$name.log"
  echo "== $name: $module $args"
  note=""
  binary="$ELECTOR_APISERVER_BIN"
  if [[ "$dimension" == kubernetes ]]; then # that release's API server, built before the clock starts
    if ! binary="$(ELECTOR_K8S_VERSION="v$version" bash "$root/testenv/build-k8s.sh" 2>"$log.build" | tail -n 1)" || [[ ! -x "$binary" ]]; then
      binary=/nonexistent
      note="testenv/build-k8s.sh could not build kube-apiserver v$version: $(tail -n 1 "$log.build")"
    fi
    echo "   kube-apiserver v$version: $binary"
  fi
  # Built anew against the cell's versions, with reports of this run only: the whole target goes,
  # since Quarkus keeps the application model of the last test run in target/quarkus and would
  # otherwise start the next cell's tests on the previous cell's Quarkus.
  for m in ${module//,/ }; do
    rm -rf "$m/target"
  done
  started=$SECONDS
  # The enforcer's convergence rules guard Elector's own release, not the line under test: another
  # client-java or JOSDK brings other versions of what they share, as it does in a user's project.
  if [[ -n "$note" ]]; then
    echo "$note" >"$log"
    outcome=fail
  # shellcheck disable=SC2086 # args is a list of Maven arguments
  elif ELECTOR_APISERVER_BIN="$binary" ./mvnw -B -ntp -Dmaven.repo.local="$repo" -pl "$module" verify -Djacoco.skip=true -Denforcer.skip=true $args >"$log" 2>&1; then
    outcome=pass
  elif grep -qE 'Could not (resolve|find|transfer) artifact|Non-resolvable import POM|could not be resolved' "$log"; then
    outcome=unresolved
  else
    outcome=fail
  fi
  seconds=$((SECONDS - started))
  # The per-plugin summaries ("Tests run: N, ..." without " -- in "), summed.
  read -r run failed skipped < <(grep -E '^\[[A-Z]+\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$log" \
    | sed -E 's/.*Tests run: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+), Skipped: ([0-9]+)$/\1 \2 \3 \4/' \
    | awk '{ r += $1; f += $2 + $3; s += $4 } END { print r + 0, f + 0, s + 0 }')
  if [[ "$outcome" == pass && "$run" -eq 0 ]]; then
    outcome=fail # a cell that ran no test proves nothing
  fi
  # What the tests ran on, from the reports' recorded properties: the JVM, and the cell's jar on
  # the class path (a version property that did not take would otherwise pass unnoticed). No
  # grep -q at the end of these pipes: it would stop reading, and pipefail would count the
  # writer's broken pipe as no match.
  reports=()
  shopt -s nullglob # a module without integration tests has no failsafe reports
  for m in ${module//,/ }; do
    reports+=("$m"/target/surefire-reports/TEST-*.xml "$m"/target/failsafe-reports/TEST-*.xml)
  done
  shopt -u nullglob
  jvm="$(cat "${reports[@]}" 2>/dev/null | sed -n 's/.*name="java.version" value="\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')"
  if [[ "$outcome" == pass && -n "$jar" ]] \
    && ! cat "${reports[@]}" 2>/dev/null | grep -o 'value="[^"]*"' | sed 's/^value="//; s/"$//' | tr ':' '\n' | grep "/$jar\$" >/dev/null; then
    outcome=fail
    echo "   $jar is not on the tests' class path" | tee -a "$log"
  fi
  if [[ "$dimension" == jdk && "$outcome" == pass && "${jvm%%.*}" != "$version" ]]; then
    outcome=fail
    echo "   the tests ran on Java $jvm, not $version" | tee -a "$log"
  fi
  # The version in each ready line the testkit logged ("elector-apiserver v1.36.3 ready at ..."): a
  # cell passes only on its own release, and only if the tests started an API server at all.
  if [[ "$dimension" == kubernetes && "$outcome" == pass ]]; then
    servers="$(cat "${reports[@]}" 2>/dev/null | grep -o 'elector-apiserver v[^ ]* ready at' | sort | uniq -c | awk '{ printf "%s%s x%s", n++ ? ", " : "", $3, $1 }')"
    echo "   API servers started: ${servers:-none}" | tee -a "$log"
    if [[ -z "$servers" || "$(cat "${reports[@]}" | grep -o 'elector-apiserver v[^ ]* ready at' | sort -u)" != "elector-apiserver v$version ready at" ]]; then
      outcome=fail
      note="the tests' API servers reported ${servers:-no version}, not only v$version"
      echo "   $note" | tee -a "$log"
    fi
  fi
  jvm="${jvm% }"
  jvm="${jvm:--}" # no empty fields (see write_table)
  grep -v "^$name"$'\t' "$results" >"$results.new" || true
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$dimension" "$version" "$module" \
    "$outcome" "$run" "$failed" "$skipped" "$seconds" "$jvm" "$commit" "$proves" "${note:--}" >>"$results.new"
  mv "$results.new" "$results"
  write_table
  echo "   $outcome: $run tests, $failed failed, $skipped skipped, ${seconds} s, on Java $jvm"
done

echo "support-matrix: $(grep -c $'\tpass\t' "$results" || true) passed, $(grep -c $'\tfail\t' "$results" || true) failed, $(grep -c $'\tunresolved\t' "$results" || true) not resolvable, of $(wc -l <"$results") cells"
! grep -q $'\tfail\t' "$results"
