#!/usr/bin/env bash
# Builds the release set and checks it: ./mvnw -Prelease -DskipTests deploy writes every file that a
# release uploads into target/staging-deploy (a Maven repository layout), and this script lists
# those files and compares the list with the expected one: pom, jar, sources and javadoc of each
# library module, its CycloneDX SBOM (-cyclonedx.json, elector-parent's too), the poms of
# elector-parent and elector-bom, a .md5 and .sha1 for each, an .asc for each when signing
# (MAVEN_GPG_KEY set, or --signed), and nothing else. It also opens every jar: META-INF/LICENSE and
# NOTICE in each, Automatic-Module-Name in each main jar, classes, sources and an index.html where
# they belong; every SBOM, which must describe its own artifact; every checksum, which must match;
# the Central metadata in the poms; and, for a release version, no SNAPSHOT anywhere in a pom.
#   checks/release-check.sh [--no-build] [--signed] [--version V] [--staging DIR] [maven args...]
# --version and --staging check a set built elsewhere (release/release.sh passes them); by default the
# version is pom.xml's and the set is target/staging-deploy.
# Exits non-zero and names every missing or unexpected file or entry.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
signed=0
[[ -n "${MAVEN_GPG_KEY:-}" ]] && signed=1
maven_args=()
staging=target/staging-deploy
version="$(sed -n '/<artifactId>elector-parent<\/artifactId>/,/<version>/s#.*<version>\(.*\)</version>.*#\1#p' pom.xml | head -n1)"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0 ;;
    --signed) signed=1 ;;
    --version | --staging)
      [[ $# -ge 2 ]] || { echo "release-check: $1 needs a value"; exit 2; }
      if [[ $1 == --version ]]; then version="$2"; else staging="$2"; fi
      shift ;;
    *) maven_args+=("$1") ;;
  esac
  shift
done
[[ "$staging" == /* ]] || staging="$PWD/$staging" # absolute: jars are opened from another folder
[[ -n "$version" ]] || { echo "release-check: FAIL cannot read the version from pom.xml"; exit 1; }

if [[ $build == 1 ]]; then
  rm -rf "$staging"
  echo "== ./mvnw -B -ntp -Prelease -DskipTests deploy ${maven_args[*]:-} (into $staging)"
  ./mvnw -B -ntp -Prelease -DskipTests deploy "${maven_args[@]}"
fi
[[ -d "$staging" ]] || { echo "release-check: FAIL $staging does not exist; run without --no-build"; exit 1; }

# The published artifacts: "artifactId:kinds" (kinds of file besides the pom).
library=(elector-core:dev.elector.core elector-testkit:dev.elector.testkit
  elector-shards:dev.elector.shard
  elector-kube-base:dev.elector.kube elector-k8s-lease:dev.elector.k8s.lease
  elector-configmap:dev.elector.configmap elector-fabric8:dev.elector.fabric8
  elector-micrometer:dev.elector.micrometer elector-josdk:dev.elector.josdk
  elector-quarkus:dev.elector.quarkus elector-quarkus-deployment:dev.elector.quarkus.deployment
  elector-spring-boot-autoconfigure:dev.elector.spring)
# Starters: a pom and a jar without classes (their dependencies are the point), with a javadoc jar
# whose index.html points to the auto-configuration's, and a sources jar with the licence only.
starters=(elector-spring-boot-starter:dev.elector.spring.starter)
expected="$(mktemp)"
actual="$(mktemp)"
work="$(mktemp -d)"
trap 'rm -rf "$expected" "$actual" "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

add() { # add FILE: the file, its checksums and, when signing, its signature
  local base="dev/elector/$1"
  echo "$base"; echo "$base.md5"; echo "$base.sha1"
  if [[ $signed == 1 ]]; then echo "$base.asc"; fi
}
{
  for pom in elector-parent elector-bom; do add "$pom/$version/$pom-$version.pom"; done
  add "elector-parent/$version/elector-parent-$version-cyclonedx.json"
  for entry in "${library[@]}" "${starters[@]}"; do
    a="${entry%%:*}"
    for suffix in .pom .jar -sources.jar -javadoc.jar -cyclonedx.json; do add "$a/$version/$a-$version$suffix"; done
  done
} | sort >"$expected"

# Snapshots are deployed with a timestamp (name-0.1.0-20261203.143406-1.jar); name them by version.
snapshot_base="${version%-SNAPSHOT}"
(cd "$staging" && find . -type f ! -name 'maven-metadata.xml*' | sed 's#^\./##') \
  | sed -E "s#-${snapshot_base//./\\.}-[0-9]{8}\.[0-9]{6}-[0-9]+#-${version}#" | sort >"$actual"

echo "== files in $staging (maven-metadata.xml left out; snapshot timestamps shown as $version)"
sed 's/^/   /' "$actual"
if dup="$(uniq -d "$actual")" && [[ -n "$dup" ]]; then
  fail "more than one build of: $(tr '\n' ' ' <<<"$dup")(delete $staging and build again)"
fi
if ! diff -u "$expected" "$actual" >"$work/diff"; then
  grep '^-[^-]' "$work/diff" | sed 's/^-/missing:    /' || true
  grep '^+[^+]' "$work/diff" | sed 's/^+/unexpected: /' || true
  fail "the release set differs from the expected one (above)"
fi

file() { # file PATTERN-PATH: the deployed file whose normalized name is the given one
  local want="$1" f
  while IFS= read -r f; do
    if [[ "$(sed -E "s#-${snapshot_base//./\\.}-[0-9]{8}\.[0-9]{6}-[0-9]+#-${version}#" <<<"$f")" == "$want" ]]; then
      echo "$staging/$f"; return
    fi
  done < <(cd "$staging" && find . -type f -path "*/$(basename "$(dirname "$want")")/*" | sed 's#^\./##')
}

for entry in "${library[@]}"; do
  a="${entry%%:*}"; module_name="${entry#*:}"
  for suffix in .jar -sources.jar -javadoc.jar; do
    jar_file="$(file "dev/elector/$a/$version/$a-$version$suffix")"
    [[ -n "$jar_file" ]] || continue # reported as missing above
    jar tf "$jar_file" >"$work/list"
    for entry_name in META-INF/LICENSE META-INF/NOTICE; do
      grep -qx "$entry_name" "$work/list" || fail "$a-$version$suffix has no $entry_name"
    done
    case "$suffix" in
      .jar) grep -q '\.class$' "$work/list" || fail "$a-$version.jar has no classes"
        (cd "$work" && rm -rf META-INF && jar xf "$jar_file" META-INF/MANIFEST.MF)
        grep -q "^Automatic-Module-Name: $module_name" "$work/META-INF/MANIFEST.MF" \
          || fail "$a-$version.jar: manifest has no Automatic-Module-Name: $module_name" ;;
      -sources.jar) grep -q '\.java$' "$work/list" || fail "$a-$version$suffix has no .java files" ;;
      -javadoc.jar) grep -qx 'index.html' "$work/list" || fail "$a-$version$suffix has no index.html" ;;
    esac
  done
done

for entry in "${starters[@]}"; do
  a="${entry%%:*}"; module_name="${entry#*:}"
  for suffix in .jar -sources.jar -javadoc.jar; do
    jar_file="$(file "dev/elector/$a/$version/$a-$version$suffix")"
    [[ -n "$jar_file" ]] || continue # reported as missing above
    jar tf "$jar_file" >"$work/list"
    for entry_name in META-INF/LICENSE META-INF/NOTICE; do
      grep -qx "$entry_name" "$work/list" || fail "$a-$version$suffix has no $entry_name"
    done
    case "$suffix" in
      .jar) grep -q '\.class$' "$work/list" && fail "$a-$version.jar, a starter, has classes"
        (cd "$work" && rm -rf META-INF && jar xf "$jar_file" META-INF/MANIFEST.MF)
        grep -q "^Automatic-Module-Name: $module_name" "$work/META-INF/MANIFEST.MF" \
          || fail "$a-$version.jar: manifest has no Automatic-Module-Name: $module_name" ;;
      -javadoc.jar) grep -qx 'index.html' "$work/list" || fail "$a-$version$suffix has no index.html" ;;
    esac
  done
done

# Each SBOM is CycloneDX JSON about its own artifact and version; the jars' list what they bring
# (elector-core brings slf4j-api, so every jar's SBOM has at least that).
for entry in elector-parent:pom "${library[@]}" "${starters[@]}"; do
  a="${entry%%:*}"
  sbom="$(file "dev/elector/$a/$version/$a-$version-cyclonedx.json")"
  [[ -n "$sbom" ]] || continue
  problem="$(python3 - "$sbom" "$a" "$version" <<'PY'
import json, sys
path, artifact, version = sys.argv[1:]
try:
    bom = json.load(open(path))
except ValueError as e:
    print(f"is not JSON ({e})"); sys.exit()
component = bom.get("metadata", {}).get("component", {})
if bom.get("bomFormat") != "CycloneDX":
    print("is not a CycloneDX document")
elif (component.get("group"), component.get("name"), component.get("version")) != ("dev.elector", artifact, version):
    print(f"describes {component.get('group')}:{component.get('name')}:{component.get('version')}")
elif artifact != "elector-parent" and not any(c.get("name") == "slf4j-api" for c in bom.get("components", [])):
    print("lists no slf4j-api among its components")
PY
)"
  [[ -z "$problem" ]] || fail "$a-$version-cyclonedx.json $problem"
done

# Every checksum matches its file.
while IFS= read -r sum; do
  f="${sum%.*}"; kind="${sum##*.}"
  [[ -f "$f" ]] || continue
  want="$(tr -d ' \n' <"$sum")"
  got="$("${kind}sum" "$f" | cut -d' ' -f1)"
  [[ "$want" == "$got" ]] || fail "${sum#"$staging"/} says $want, the file's is $got"
done < <(find "$staging" -type f \( -name '*.md5' -o -name '*.sha1' \) ! -name 'maven-metadata.xml*')

# A release names no snapshot: not as its version, nor as a dependency's.
if [[ "$version" != *-SNAPSHOT ]]; then
  while IFS= read -r pom; do
    fail "${pom#"$staging"/} names a SNAPSHOT: $(grep -m1 -- '-SNAPSHOT' "$pom" | sed 's/^ *//')"
  done < <(grep -rl --include='*.pom' -- '-SNAPSHOT' "$staging" || true)
fi

# Maven Central wants name, description, url, licenses, developers and scm in every pom, inherited
# or not: the library poms get them from elector-parent, so check the two poms that declare them.
for pom in elector-parent elector-bom; do
  pom_file="$(file "dev/elector/$pom/$version/$pom-$version.pom")"
  [[ -n "$pom_file" ]] || continue
  for element in name description url licenses developers scm; do
    grep -q "<$element>" "$pom_file" || fail "$pom-$version.pom has no <$element>"
  done
  grep -q 'Apache License, Version 2.0' "$pom_file" || fail "$pom-$version.pom does not name the Apache License 2.0"
done
for entry in "${library[@]}" "${starters[@]}"; do
  a="${entry%%:*}"
  pom_file="$(file "dev/elector/$a/$version/$a-$version.pom")"
  [[ -n "$pom_file" ]] || continue
  grep -q '<artifactId>elector-parent</artifactId>' "$pom_file" || fail "$a-$version.pom does not inherit elector-parent"
  for element in name description; do
    grep -q "<$element>" "$pom_file" || fail "$a-$version.pom has no <$element>"
  done
done
# The BOM pins the library modules and nothing else, and has no parent to inherit more from.
bom="$(file "dev/elector/elector-bom/$version/elector-bom-$version.pom")"
if [[ -n "$bom" ]]; then
  grep -q '<parent>' "$bom" && fail "elector-bom-$version.pom has a parent"
  pinned="$(sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/s#.*<artifactId>\(.*\)</artifactId>.*#\1#p' "$bom" | sort | tr '\n' ' ')"
  want="$(for e in "${library[@]}" "${starters[@]}"; do echo "${e%%:*}"; done | sort | tr '\n' ' ')"
  [[ "$pinned" == "$want" ]] || fail "elector-bom pins '$pinned', want '$want'"
  other="$(sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/s#.*<groupId>\(.*\)</groupId>.*#\1#p' "$bom" | grep -vx 'dev.elector' || true)"
  [[ -z "$other" ]] || fail "elector-bom pins artifacts of other groups: $other"
fi
[[ -f LICENSE ]] && grep -q 'Apache License' LICENSE && grep -q 'Version 2.0, January 2004' LICENSE \
  || fail "LICENSE at the root is not the Apache License 2.0"

count="$(wc -l <"$actual")"
if [[ $failures -gt 0 ]]; then
  echo "release-check: FAIL, $failures problem(s) in $count files (signed: $([[ $signed == 1 ]] && echo yes || echo no))"
  exit 1
fi
echo "release-check: PASS, $count files as expected (signed: $([[ $signed == 1 ]] && echo yes || echo no))"
