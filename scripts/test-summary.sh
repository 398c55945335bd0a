#!/usr/bin/env bash
# Prints one closing line for the whole test run, counted from the Surefire and Failsafe XML
# reports of every module plus the checks that test.sh runs after Maven (passed as arguments,
# each "name=pass" or "name=fail"):
#   tests: N passed, N failed, N skipped
set -euo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
while IFS= read -r report; do
  # The <testsuite ...> element carries tests, failures, errors and skipped for its class.
  line="$(grep -m1 -o '<testsuite [^>]*>' "$report" || true)"
  [[ -n "$line" ]] || continue
  attr() { sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p" <<<"$line"; }
  t="$(attr tests)"; f="$(attr failures)"; e="$(attr errors)"; s="$(attr skipped)"
  t="${t:-0}"; f="${f:-0}"; e="${e:-0}"; s="${s:-0}"
  passed=$((passed + t - f - e - s)); failed=$((failed + f + e)); skipped=$((skipped + s))
done < <(find . -path '*/target/surefire-reports/TEST-*.xml' -o -path '*/target/failsafe-reports/TEST-*.xml' | grep -v '/examples/' | sort)

for check in "$@"; do
  case "${check#*=}" in
    pass) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ "$failed" -eq 0 ]]
