#!/usr/bin/env bash
# Prints line and branch coverage of each published module, from the aggregate JaCoCo report that
# `./mvnw verify` writes (checks/coverage/target/site/jacoco-aggregate/jacoco.csv): the unit and
# integration tests of every published module, counted against the classes of every published
# module. A report for readers, not a gate: no figure here fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
csv=checks/coverage/target/site/jacoco-aggregate/jacoco.csv
if [ ! -f "$csv" ]; then
  echo "no aggregate coverage report at $csv: run ./mvnw verify (or ./test.sh) first" >&2
  exit 1
fi
printf '%-24s %15s %17s\n' coverage lines branches
row() { awk -v n="$1" -v lc="$2" -v lm="$3" -v bc="$4" -v bm="$5" 'BEGIN {
  printf "%-24s %6.1f%% of %5d %8.1f%% of %5d\n", n, (lc + lm ? 100 * lc / (lc + lm) : 0), lc + lm,
    (bc + bm ? 100 * bc / (bc + bm) : 0), bc + bm }'; }
# columns: GROUP,PACKAGE,CLASS,INSTRUCTION_MISSED,INSTRUCTION_COVERED,BRANCH_MISSED,BRANCH_COVERED,LINE_MISSED,LINE_COVERED,...
while IFS=, read -r group lc lm bc bm; do
  row "${group#*/}" "$lc" "$lm" "$bc" "$bm"
done < <(awk -F, 'NR > 1 { lc[$1] += $9; lm[$1] += $8; bc[$1] += $7; bm[$1] += $6 }
                  END { for (g in lc) print g "," lc[g] "," lm[g] "," bc[g] "," bm[g] }' "$csv" | sort)
read -r lc lm bc bm < <(awk -F, 'NR > 1 { lc += $9; lm += $8; bc += $7; bm += $6 } END { print lc, lm, bc, bm }' "$csv")
row "all published modules" "$lc" "$lm" "$bc" "$bm"
