#!/usr/bin/env bash
# Runs the whole comparison of Elector with the client-java-extended, fabric8 and client-go electors
# against one local control plane, and writes benchmarks/RESULTS.md and benchmarks/results.svg.
# client-go runs as testenv/cmd/elector-gocandidate processes (built once by
# testenv/build-gocandidate.sh, or ELECTOR_GOCANDIDATE_BIN).
#
#   benchmarks/run.sh            full mode, about 30-40 minutes on 2 cores
#   benchmarks/run.sh --quick    quick mode, about 3-4 minutes (what CI runs, as BenchmarkQuickIT)
#   benchmarks/run.sh --latency  only the round-trip floors, Elector's acquires and handovers
#   benchmarks/run.sh --out DIR  write the report elsewhere
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${ELECTOR_APISERVER_BIN:-$HOME/.cache/elector/bin/elector-apiserver}"
if [[ ! -x "$bin" ]]; then
  echo "building the local control plane once (testenv/build.sh) ..." >&2
  bash testenv/build.sh
fi

mkdir -p target
./mvnw -B -ntp -pl benchmarks -am -DskipTests package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >target/bench-build.log 2>&1 \
  || { grep -E 'ERROR' target/bench-build.log >&2 || true; echo "build failed; see target/bench-build.log" >&2; exit 1; }

args=("$@")
if [[ ! " ${args[*]:-} " =~ " --out " ]]; then
  args+=(--out benchmarks)
fi
exec java -Xmx4g -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  dev.elector.bench.BenchMain --binary "$bin" "${args[@]}"
