#!/usr/bin/env bash
# Elector's Spring Boot starter beside Spring Cloud Kubernetes' leader: builds the one application
# twice (sck-app, elector-app), then runs SpringSideBySideIT of the reliability module, which
# starts the local control plane and runs three replicas of each side on it, one side after the
# other. Figures: FIGURE lines, and checks/reliability/target/spring-side-by-side-figures.txt.
#
#   benchmarks/spring-side-by-side/run.sh [short|defaults|both]     (default: both, about 17 min)
#
# Elector's artifacts come from ~/.m2 (first ./mvnw install -am -pl
# integrations/elector-spring-boot-starter,libraries/elector-bom); Spring Cloud Kubernetes' from
# Maven Central. Extra arguments after the pass go to Maven.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pass="${1:-both}"
shift || true
cd "$root"
for app in sck-app elector-app; do
  echo "== build $app"
  ./mvnw -B -ntp -q -f "$here/$app/pom.xml" package "$@"
done
rm -f checks/reliability/target/spring-side-by-side-figures.txt
echo "== SpringSideBySideIT, pass: $pass"
./mvnw -B -ntp -pl checks/reliability test-compile failsafe:integration-test failsafe:verify \
  -Dit.test=SpringSideBySideIT -Delector.sbs.pass="$pass" \
  -Delector.sbs.dir="$here" -DtrimStackTrace=false "$@"
echo "== figures: checks/reliability/target/spring-side-by-side-figures.txt"
