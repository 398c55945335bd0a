#!/usr/bin/env bash
# Two release builds of the commit checked out, compared byte for byte: release/release.sh VERSION runs
# twice, each in a fresh clone in a folder of its own and the second in another time zone
# (Pacific/Chatham, UTC+12:45), into two staging repositories, and every file of the two sets must
# be the same (jars, sources, javadoc, poms, SBOMs and their checksums).
# Left out: maven-metadata.xml (the deploy's own time) and .asc signatures (an OpenPGP signature
# holds the time it was made); their files are compared. A jar that differs is opened and its
# differing entries are named.
#   checks/reproducible-release.sh [VERSION] [MAVEN-OPTION...]     (VERSION: 0.0.0-reproducible)
# Prints "reproducible-release: PASS N files identical ..." or "... FAIL" with the differences.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version=0.0.0-reproducible
if [[ $# -gt 0 && "$1" != -* ]]; then version="$1"; shift; fi
work="$(mktemp -d "${TMPDIR:-/tmp}/reproducible-release.XXXXXX")"
status=1
trap 'if [[ $status == 0 ]]; then rm -rf "$work"; else echo "reproducible-release: both sets kept in $work"; fi' EXIT

times=()
zone=("${TZ:-UTC}" Pacific/Chatham)
for run in 1 2; do
  echo "== build $run: TZ=${zone[$((run - 1))]} release/release.sh $version --staging $work/staging-$run $*"
  start=$SECONDS
  TZ="${zone[$((run - 1))]}" release/release.sh "$version" --staging "$work/staging-$run" "$@" >"$work/build-$run.log" 2>&1 \
    || { tail -n 30 "$work/build-$run.log"; echo "reproducible-release: FAIL build $run failed"; exit 1; }
  times+=("$((SECONDS - start))")
  tail -n 1 "$work/build-$run.log" | sed 's/^/   /'
done

list() { (cd "$1" && find . -type f ! -name 'maven-metadata.xml*' | sed 's#^\./##' | sort); }
list "$work/staging-1" >"$work/files-1"
list "$work/staging-2" >"$work/files-2"
diff -u "$work/files-1" "$work/files-2" >"$work/files.diff" || {
  cat "$work/files.diff"; echo "reproducible-release: FAIL the two builds staged different files (above)"; exit 1; }

same=0
differ=()
jars=0
while IFS= read -r f; do
  [[ "$f" == *.asc ]] && continue
  [[ "$f" == *.jar ]] && jars=$((jars + 1))
  if cmp -s "$work/staging-1/$f" "$work/staging-2/$f"; then
    same=$((same + 1))
  else
    differ+=("$f")
  fi
done <"$work/files-1"
[[ $same -gt 0 && $jars -gt 0 ]] || { echo "reproducible-release: FAIL nothing was compared ($same files, $jars jars)"; exit 1; }

if [[ ${#differ[@]} -gt 0 ]]; then
  for f in "${differ[@]}"; do
    echo "   differs: $f"
    if [[ "$f" == *.jar ]]; then
      for run in 1 2; do
        mkdir -p "$work/x-$run" && rm -rf "$work/x-$run"/* && (cd "$work/x-$run" && unzip -q "$work/staging-$run/$f")
      done
      diff -rq "$work/x-1" "$work/x-2" | sed "s#$work/x-[12]/##g; s/^/      /" | head -n 10 || true
      zipinfo -T "$work/staging-1/$f" >"$work/zi-1" 2>/dev/null || true
      zipinfo -T "$work/staging-2/$f" >"$work/zi-2" 2>/dev/null || true
      diff "$work/zi-1" "$work/zi-2" | grep '^[<>]' | head -n 4 | sed 's/^/      entry /' || true
    fi
  done
  echo "reproducible-release: FAIL ${#differ[@]} of $((same + ${#differ[@]})) files differ between two builds of $(git rev-parse --short HEAD)"
  exit 1
fi
status=0
echo "reproducible-release: PASS $same files identical byte for byte ($jars jars) in two builds of $(git rev-parse --short HEAD) as $version (${times[0]} s and ${times[1]} s)"
