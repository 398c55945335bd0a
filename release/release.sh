#!/usr/bin/env bash
# Builds a release of the commit checked out, as version VERSION, into a local staging repository
# (a Maven repository layout, target/staging-deploy unless --staging DIR): for each published
# artifact its pom, jar, -sources.jar, -javadoc.jar and -cyclonedx.json (SBOM), each with .md5 and
# .sha1, and an .asc for each when a key is configured (MAVEN_GPG_KEY and MAVEN_GPG_PASSPHRASE, or
# -Dgpg.skip=false with a key in the gpg keyring). Then it checks the set (checks/release-check.sh)
# and lists it. CONTRIBUTING.md ("Artifacts and release") says how to upload it.
#   release/release.sh VERSION [--staging DIR] [MAVEN-OPTION...]      e.g. release/release.sh 0.1.0
# The build runs in a fresh clone of HEAD (so only what is committed is released), with the version
# set in its poms and every archive entry dated at the commit's time, which makes two builds of
# one commit byte-identical (checks/reproducible-release.sh compares them). The work tree must be
# clean. Maven runs -Prelease -Dmaven.test.skip=true deploy on the published modules and what they
# need: the tests are CI's, run on the same commit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; }
version=""
staging="$root/target/staging-deploy"
maven_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --staging)
      [[ $# -ge 2 ]] || { echo "release.sh: --staging needs a directory" >&2; exit 2; }
      staging="$(mkdir -p "$2" && cd "$2" && pwd)"; shift ;;
    -o | --offline)
      echo "release.sh: Maven deploys nothing offline, not even to the local staging folder; drop $1 (Maven then goes online only for what the local repository lacks)" >&2
      exit 2 ;;
    -*) maven_args+=("$1") ;;
    *)
      [[ -z "$version" ]] || { echo "release.sh: one version only, got '$version' and '$1'" >&2; exit 2; }
      version="$1" ;;
  esac
  shift
done
if [[ -z "$version" ]]; then
  echo "release.sh: name the version to release, e.g. release/release.sh 0.1.0" >&2; exit 2
fi
if [[ "$version" == *-SNAPSHOT ]] || ! [[ "$version" =~ ^[0-9]+(\.[0-9]+)*([.-][0-9A-Za-z]+)*$ ]]; then
  echo "release.sh: '$version' is not a release version; give digits and dots with an optional qualifier and no -SNAPSHOT, e.g. 0.1.0 or 0.2.0-rc1" >&2
  exit 2
fi
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "release.sh: the work tree has uncommitted changes ($(git status --porcelain --untracked-files=no | wc -l) files); a release is built from a commit: commit or stash them first" >&2
  exit 2
fi

current="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' pom.xml | head -n1)"
commit="$(git rev-parse HEAD)"
timestamp="$(date -u -d "@$(git log -1 --format=%ct HEAD)" +%Y-%m-%dT%H:%M:%SZ)"
published="libraries/elector-bom,elector-core,libraries/elector-shards,libraries/elector-kube-base,elector-k8s-lease,elector-configmap"
published+=",libraries/elector-fabric8,integrations/elector-micrometer,integrations/elector-josdk"
published+=",integrations/elector-quarkus/runtime,integrations/elector-quarkus/deployment"
published+=",integrations/elector-spring-boot-autoconfigure,integrations/elector-spring-boot-starter"
published+=",libraries/elector-testkit"

build="$(mktemp -d "${TMPDIR:-/tmp}/elector-release.XXXXXX")"
trap 'rm -rf "$build"' EXIT
start=$SECONDS
echo "release.sh: $version from ${commit:0:12} (entries dated $timestamp) into $staging"
git clone -q "$root" "$build/elector"
git -C "$build/elector" checkout -q "$commit"
# The version: the project's and its parent's <version> in every pom of the build.
changed=0
while IFS= read -r pom; do
  sed -i "s#<version>${current}</version>#<version>${version}</version>#" "$build/elector/$pom"
  changed=$((changed + 1))
done < <(git -C "$build/elector" grep -l -F "<version>${current}</version>" -- '*pom.xml')
[[ $changed -gt 0 ]] || { echo "release.sh: FAIL no pom names version $current" >&2; exit 1; }

rm -rf "$staging"
mkdir -p "$staging"
(cd "$build/elector" && ./mvnw -B -ntp -Prelease -Dmaven.test.skip=true deploy -pl "$published" -am \
  -Dproject.build.outputTimestamp="$timestamp" \
  -Delector.staging.repository="elector-staging::file:$staging" \
  ${maven_args[@]+"${maven_args[@]}"}) >"$build/maven.log" 2>&1 \
  || { tail -n 40 "$build/maven.log"; echo "release.sh: FAIL the Maven build failed (last lines above)" >&2; exit 1; }
built=$((SECONDS - start))

bash checks/release-check.sh --no-build --version "$version" --staging "$staging"
files="$(find "$staging" -type f ! -name 'maven-metadata.xml*' | wc -l)"
size="$(du -sh "$staging" | cut -f1)"
kinds="$(find "$staging" -type f ! -name 'maven-metadata.xml*' | sed -E 's#.*-'"${version//./\\.}"'##' | sort | uniq -c \
  | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')"
echo "release.sh: $version built in ${built} s: $files files, $size in $staging ($kinds)"
