#!/usr/bin/env bash
# Prints one closing line for the whole test run:
#   tests: N passed, N failed, N skipped
# counted from the per-module summaries that Surefire and Failsafe print in the Maven log
# ("Tests run: N, Failures: F, Errors: E, Skipped: S", one per plugin run and module), plus the
# checks that test.sh runs after Maven, each given as "name=pass" or "name=fail".
#   checks/test-summary.sh MAVEN_LOG [CHECK=pass|fail ...]
set -euo pipefail
log="${1:?usage: test-summary.sh MAVEN_LOG [CHECK=pass|fail ...]}"
shift
[[ -r "$log" ]] || { echo "test-summary: cannot read $log" >&2; exit 2; }

read -r run failed skipped < <(grep -E '^\[[A-Z]+\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$log" \
  | sed -E 's/.*Tests run: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+), Skipped: ([0-9]+)$/\1 \2 \3 \4/' \
  | awk '{ run += $1; failed += $2 + $3; skipped += $4 } END { print run + 0, failed + 0, skipped + 0 }')
passed=$((run - failed - skipped))

for check in "$@"; do
  case "${check#*=}" in
    pass) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ "$failed" -eq 0 ]]
