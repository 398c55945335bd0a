package dev.elector.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the quick comparison (what {@code benchmarks/run.sh --quick} runs) and checks that it
 * produced sane output: every implementation measured in every scenario, a report and a chart. It
 * deliberately asserts nothing about the timing goals; RESULTS.md states those.
 */
class BenchmarkQuickIT {
  /** Crash failover and graceful handover. */
  private static final List<Impl> TAKEOVERS =
      List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8, Impl.CLIENT_JAVA, Impl.FABRIC8, Impl.CLIENT_GO);

  /** API requests of 1 leader and 9 followers. */
  private static final List<Impl> LOADS =
      List.of(
          Impl.ELECTOR,
          Impl.ELECTOR_POLL,
          Impl.ELECTOR_SHARED,
          Impl.ELECTOR_FABRIC8,
          Impl.CLIENT_JAVA,
          Impl.FABRIC8,
          Impl.CLIENT_GO);

  /** Many electors in one JVM (Java only). */
  private static final List<Impl> SCALES =
      List.of(
          Impl.ELECTOR, Impl.ELECTOR_BOUNDED, Impl.ELECTOR_SHARED, Impl.CLIENT_JAVA, Impl.FABRIC8);

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void quickRunMeasuresEveryImplementation() throws Exception {
    assumeFalse(
        "true".equalsIgnoreCase(System.getenv("ELECTOR_SKIP_CLUSTER_TESTS")),
        "ELECTOR_SKIP_CLUSTER_TESTS=true");
    Path binary = Cluster.defaultBinary();
    assertTrue(
        Files.isExecutable(binary),
        "no local control plane at "
            + binary
            + "; build it once with `bash testenv/build.sh` (./test.sh does) or set"
            + " ELECTOR_APISERVER_BIN");
    Path out = Path.of("target", "bench-quick");

    Results results = BenchMain.run(true, out, binary);

    assertEquals("{}", results.errors.toString(), "steps failed");
    assertEquals(RenewBenchmark.SUBJECTS.length, results.renew.size(), "JMH renew rows");
    assertEquals(AcquireBenchmark.SUBJECTS.length, results.acquire.size(), "JMH acquire rows");
    for (Results.Jmh row : results.renew) {
      assertTrue(row.samples() > 0 && row.p50() >= 0 && !Double.isNaN(row.mean()), "renew " + row);
    }
    for (Results.Jmh row : results.acquire) {
      assertTrue(row.samples() > 0 && row.p50() > 0, "acquire " + row);
    }
    for (Impl impl : TAKEOVERS) {
      assertTrue(
          results.failovers.stream()
              .anyMatch(
                  t ->
                      t.impl() == impl
                          && !t.fromStopMs().isEmpty()
                          && t.fromStopMs().stream().allMatch(ms -> ms > 0)),
          "no crash failover measured for " + impl);
      assertTrue(
          results.handovers.stream()
              .anyMatch(
                  t ->
                      t.impl() == impl
                          && !t.fromStopMs().isEmpty()
                          && t.fromStopMs().stream().allMatch(ms -> ms > 0)),
          "no handover measured for " + impl);
    }
    for (Impl impl : LOADS) {
      assertTrue(
          results.loads.stream().anyMatch(l -> l.impl() == impl && l.total() > 0),
          "no API load measured for " + impl);
    }
    for (Impl impl : SCALES) {
      assertTrue(
          results.scales.stream()
              .anyMatch(s -> s.impl() == impl && s.electors() > 0 && s.leading() == s.electors()),
          "scale not measured for " + impl);
    }
    for (Impl impl : Impl.values()) {
      assertTrue(
          TAKEOVERS.contains(impl) || LOADS.contains(impl) || SCALES.contains(impl),
          impl + " is measured in no scenario");
    }
    assertTrue(
        results.handoverFloor.size() > 0
            && results.handoverFloor.stream().allMatch(f -> f.totalMs() > 0 && f.eventMs() > 0),
        "handover floor " + results.handoverFloor);
    for (Impl impl : List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8)) {
      for (Timings t : List.of(Timings.DEFAULT, Timings.SCALED)) {
        assertTrue(
            results.acquireFloors.stream()
                .anyMatch(
                    a ->
                        a.impl() == impl
                            && a.timings() == t
                            && !a.acquireMs().isEmpty()
                            && a.acquireMs().size() == a.createFloorMs().size()
                            && a.createFloorMs().stream().allMatch(ms -> ms > 0)),
            "no acquire and create floor measured for " + impl + " " + t.shortName());
      }
    }
    assertTrue(
        results.handovers.stream()
            .filter(t -> t.impl().isElector())
            .allMatch(t -> t.breakdowns().size() == t.fromStopMs().size()),
        "a handover of Elector without its breakdown");

    String md = Files.readString(out.resolve("RESULTS.md"));
    for (Impl impl : Impl.values()) {
      assertTrue(md.contains(impl.label), "RESULTS.md does not mention " + impl.label);
    }
    assertFalse(md.contains("Steps that failed"), md);
    String svg = Files.readString(out.resolve("results.svg"));
    assertTrue(
        svg.startsWith("<svg") && svg.contains("<rect") && svg.strip().endsWith("</svg>"),
        "results.svg is not a chart");
  }
}
