#!/usr/bin/env bash
# The demo: builds what it needs, then runs it. Until the DHCP agent and controller demo land,
# it runs three candidates in one JVM on the in-memory lock and shows a crash and a handover.
set -euo pipefail
cd "$(dirname "$0")"
./mvnw -q -B install -DskipTests -pl controller-example -am
./mvnw -q -B -pl controller-example exec:java -Dexec.mainClass=dev.elector.demo.InMemoryDemo
