#!/usr/bin/env bash
# Each install path of the docs, from a fresh clone, timed: for every block of README.md and
# docs/getting-started.md marked <!-- install: PATH -->, it clones this repository afresh, runs the
# block's command as written (read from the clone, never copied here) into a throwaway local Maven
# repository, then builds that path's consumer, a project outside the build, on what was installed:
#   all          checks/install-paths/all (imports the BOM; resolves every artifact it pins)
#   client-java  examples/hello-leader        fabric8      examples/josdk-fabric8-7
#   spring-boot  examples/spring-boot-leader  quarkus      examples/quarkus-leader
#   josdk        checks/install-paths/josdk
# The throwaway repository is a copy of the local repository Maven would use (~/.m2/repository, or
# -Dmaven.repo.local=DIR in MAVEN_ARGS) without dev/elector, so nothing installed before can stand
# in for what the command failed to install; the check first shows that a consumer does not
# resolve there. Every artifact installed must be a published one, and the consumers' artifacts
# must all be there. Maven options for every build go in MAVEN_ARGS (e.g. MAVEN_ARGS=-o).
#   checks/install-paths.sh [PATH...]      prints one line a path with its times, then
#                                          "install-paths: PASS ..." or "install-paths: FAIL ..."
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/install-paths.XXXXXX")"
status=1
cleanup() { if [[ $status == 0 ]]; then rm -rf "$work"; else echo "install-paths: logs kept in $work"; fi; }
trap cleanup EXIT
fail() { echo "install-paths: FAIL $*"; exit 1; }

declare -A consumer=([all]=checks/install-paths/all [client-java]=examples/hello-leader
  [fabric8]=examples/josdk-fabric8-7 [spring-boot]=examples/spring-boot-leader
  [quarkus]=examples/quarkus-leader [josdk]=checks/install-paths/josdk)
declare -A goal=([all]=compile [josdk]=compile)
# What each consumer resolves from Elector (the BOM and elector-parent too, for every path).
declare -A needs=([all]="elector-core elector-shards elector-kube-base elector-k8s-lease elector-configmap elector-fabric8
  elector-micrometer elector-josdk elector-quarkus elector-quarkus-deployment
  elector-spring-boot-autoconfigure elector-spring-boot-starter elector-testkit"
  [client-java]="elector-core elector-kube-base elector-k8s-lease"
  [fabric8]="elector-core elector-kube-base elector-fabric8"
  [spring-boot]="elector-core elector-kube-base elector-k8s-lease elector-micrometer
  elector-spring-boot-autoconfigure elector-spring-boot-starter"
  [quarkus]="elector-core elector-kube-base elector-fabric8 elector-quarkus elector-quarkus-deployment"
  [josdk]="elector-core elector-kube-base elector-fabric8 elector-josdk")
published="elector-parent elector-bom ${needs[all]}"
order=(all client-java fabric8 spring-boot quarkus josdk)
if [[ $# -gt 0 ]]; then
  for path in "$@"; do
    [[ -n "${consumer[$path]:-}" ]] || { echo "install-paths: unknown path '$path'; name one or more of: ${order[*]}" >&2; exit 2; }
  done
  order=("$@")
fi

# The all-path consumer names every artifact of the BOM.
bom_list="$(sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/s#.*<artifactId>\(.*\)</artifactId>.*#\1#p' \
  "$root/libraries/elector-bom/pom.xml" | sort | tr '\n' ' ')"
consumer_list="$(sed -n '/<\/dependencyManagement>/,$s#.*<groupId>dev.elector</groupId><artifactId>\(.*\)</artifactId>.*#\1#p' \
  "$root/checks/install-paths/all/pom.xml" | sort | tr '\n' ' ')"
want_list="$(tr -s ' \n' '\n' <<<"${needs[all]}" | sed '/^$/d' | sort | tr '\n' ' ')"
[[ "$bom_list" == "$consumer_list" ]] \
  || fail "checks/install-paths/all/pom.xml depends on '$consumer_list' but the BOM pins '$bom_list'; make them the same"
[[ "$bom_list" == "$want_list" ]] \
  || fail "the BOM pins '$bom_list' but this script's list of published jars is '$want_list'; update needs[all]"

user_repo="$HOME/.m2/repository"
for arg in ${MAVEN_ARGS:-}; do
  case "$arg" in -Dmaven.repo.local=*) user_repo="${arg#-Dmaven.repo.local=}" ;; esac
done
echo "== the throwaway repositories: $user_repo without dev/elector"
mkdir -p "$work/base"
if [[ -d "$user_repo" ]]; then
  (cd "$user_repo" && tar cf - --exclude=./dev/elector .) | (cd "$work/base" && tar xf -)
fi
version="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' "$root/pom.xml" | head -n1)"
commit="$(git -C "$root" rev-parse --short HEAD)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# maven_in REPO: MAVEN_ARGS with the local repository replaced by REPO
maven_in() {
  local args=() arg
  for arg in ${MAVEN_ARGS:-}; do [[ "$arg" == -Dmaven.repo.local=* ]] || args+=("$arg"); done
  echo "${args[*]} -Dmaven.repo.local=$1"
}

# The control: before an install, a consumer must not resolve in a throwaway repository.
cp -al "$work/base" "$work/repo-control"
git clone -q "$root" "$work/control"
if (cd "$work/control" && MAVEN_ARGS="$(maven_in "$work/repo-control")" ./mvnw -B -q \
  -f checks/install-paths/josdk/pom.xml -Delector.version="$version" compile >"$work/control.log" 2>&1); then
  fail "checks/install-paths/josdk builds with nothing installed; the check could not tell a missing artifact"
fi
grep -q 'dev.elector' "$work/control.log" || fail "the control failed for another reason than dev.elector: $(tail -n 5 "$work/control.log")"
echo "   control: with nothing installed the JOSDK consumer does not resolve dev.elector, as it must"

summary=()
for path in "${order[@]}"; do
  echo "== $path"
  clone="$work/clone-$path"
  repo="$work/repo-$path"
  git clone -q "$root" "$clone"
  cp -al "$work/base" "$repo"
  # The block after <!-- install: PATH --> in README.md or docs/getting-started.md.
  found=""
  for doc in README.md docs/getting-started.md; do
    block="$(awk -v want="<!-- install: $path -->" '
      $0 == want { marked = NR; next }
      /^<!-- .* -->$/ && marked == NR - 1 { marked = NR; next }   # another marker, e.g. newcomer
      /^```sh$/ && marked == NR - 1 { inside = 1; next }
      /^```$/ && inside { exit }
      inside { print }' "$clone/$doc")"
    if [[ -n "$block" ]]; then found="$doc"; break; fi
  done
  [[ -n "$found" ]] || fail "no block marked <!-- install: $path --> in README.md or docs/getting-started.md"
  echo "   $found: $block"
  marker="$clone/.install-start"
  touch "$marker"
  t=$(now)
  (cd "$clone" && MAVEN_ARGS="$(maven_in "$repo")" bash -euo pipefail -c "$block") >"$work/install-$path.log" 2>&1 \
    || fail "$path: the documented command failed: $(tail -n 8 "$work/install-$path.log")"
  install_time=$(since "$t")

  installed=()
  for metadata in "$repo"/dev/elector/*/maven-metadata-local.xml; do # written anew by each install
    [[ -f "$metadata" && "$metadata" -nt "$marker" ]] && installed+=("$(basename "$(dirname "$metadata")")")
  done
  for a in "${installed[@]}"; do
    grep -qw -- "$a" <<<"$published" || fail "$path: installed $a, which is not published"
  done
  for a in elector-parent elector-bom ${needs[$path]}; do
    [[ -f "$repo/dev/elector/$a/$version/$a-$version.pom" ]] || fail "$path: $a $version is not installed"
    [[ $a == elector-parent || $a == elector-bom || -f "$repo/dev/elector/$a/$version/$a-$version.jar" ]] \
      || fail "$path: $a $version has no jar"
  done

  t=$(now)
  (cd "$clone" && MAVEN_ARGS="$(maven_in "$repo")" ./mvnw -B -q -f "${consumer[$path]}/pom.xml" \
    -Delector.version="$version" "${goal[$path]:-package}") >"$work/consumer-$path.log" 2>&1 \
    || fail "$path: ${consumer[$path]} does not build on what was installed: $(tail -n 8 "$work/consumer-$path.log")"
  consumer_time=$(since "$t")
  echo "   install ${install_time} s (${#installed[@]} artifacts), then ${consumer[$path]} ${goal[$path]:-package} ${consumer_time} s"
  summary+=("$path ${install_time} s")
  rm -rf "$clone" "$repo"
done

status=0
echo "install-paths: PASS at $commit, each from a fresh clone: $(IFS=,; echo "${summary[*]}" | sed 's/,/, /g') (install only; consumers built on each)"
