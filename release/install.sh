#!/usr/bin/env bash
# Installs Elector into the local Maven repository (~/.m2, or -Dmaven.repo.local=DIR), from this
# clone, for the paths named (all of them when none is):
#   all          every published artifact: elector-parent, elector-bom and the twelve jars
#   client-java  elector-k8s-lease and elector-configmap (the locks on client-java)
#   fabric8      elector-fabric8 (the locks on fabric8's KubernetesClient)
#   spring-boot  elector-spring-boot-starter and -autoconfigure (with both clients' locks)
#   quarkus      elector-quarkus and elector-quarkus-deployment
#   josdk        elector-josdk (with elector-fabric8)
# Each path also installs elector-parent, elector-bom and the modules it depends on.
#   release/install.sh [PATH...] [MAVEN-OPTION...]     e.g. release/install.sh spring-boot -o
# It runs `./mvnw -q -Pquick-install install -pl MODULES -am` (printed first): main code only, with
# javac's -Xlint:all -Werror, and none of the contributor's checks (tests, Error Prone and NullAway,
# formatting, coverage), which CI runs on every commit; the classes are the same. Only the
# published modules are installed. It prints what it installed, where, and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A modules=(
  [client-java]="elector-k8s-lease,elector-configmap"
  [fabric8]="libraries/elector-fabric8"
  [spring-boot]="integrations/elector-spring-boot-starter,integrations/elector-spring-boot-autoconfigure"
  [quarkus]="integrations/elector-quarkus/runtime,integrations/elector-quarkus/deployment"
  [josdk]="integrations/elector-josdk"
)
modules[all]="elector-core,libraries/elector-shards,libraries/elector-kube-base,elector-k8s-lease,elector-configmap"
modules[all]+=",libraries/elector-fabric8,integrations/elector-micrometer,integrations/elector-josdk"
modules[all]+=",${modules[quarkus]},${modules[spring-boot]},libraries/elector-testkit"
paths_known="all client-java fabric8 spring-boot quarkus josdk"

selected=()
maven_args=()
for arg in "$@"; do
  case "$arg" in
    -h | --help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) maven_args+=("$arg") ;;
    *)
      if [[ -z "${modules[$arg]:-}" ]]; then
        echo "install.sh: unknown path '$arg'; name one or more of: $paths_known (or none, for all)" >&2
        exit 2
      fi
      selected+=("$arg") ;;
  esac
done
[[ ${#selected[@]} -gt 0 ]] || selected=(all)

pl="libraries/elector-bom"
for path in "${selected[@]}"; do pl+=",${modules[$path]}"; done

command=(./mvnw -q -B -Pquick-install install -pl "$pl" -am ${maven_args[@]+"${maven_args[@]}"})
echo "install.sh: ${selected[*]}: ${command[*]}"
marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT
start=$SECONDS
"${command[@]}"
elapsed=$((SECONDS - start))

version="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' pom.xml | head -n1)"
repo="$HOME/.m2/repository"
for arg in ${MAVEN_ARGS:-} ${maven_args[@]+"${maven_args[@]}"}; do
  case "$arg" in -Dmaven.repo.local=*) repo="${arg#-Dmaven.repo.local=}" ;; esac
done
installed=()
# Installing writes each artifact's maven-metadata-local.xml anew (the pom keeps its own time).
for metadata in "$repo"/dev/elector/*/maven-metadata-local.xml; do
  [[ "$metadata" -nt "$marker" && -f "$(dirname "$metadata")/$version/$(basename "$(dirname "$metadata")")-$version.pom" ]] \
    && installed+=("$(basename "$(dirname "$metadata")")")
done
[[ ${#installed[@]} -gt 0 ]] \
  || { echo "install.sh: FAIL Maven succeeded but wrote no dev.elector pom into $repo" >&2; exit 1; }
echo "install.sh: installed dev.elector:*:${version} in ${elapsed} s into $repo: ${installed[*]}"
