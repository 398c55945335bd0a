package dev.elector.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RESULTS.md from a fixed set of measurements, every section filled, against the expected file
 * under {@code src/test/resources/report/} (text files, so the docs checks do not read them as
 * Markdown); the machine and JVM lines, which depend on where the test runs, are masked. {@code
 * -Dbench.report.update=true} rewrites the expected files.
 */
class ReportGoldenTest {
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theReportOfAFixedRunIsAsExpected(boolean quick) throws IOException {
    String report = masked(new Report(results(quick)).markdown());
    Path expected =
        Path.of("src/test/resources/report", (quick ? "quick" : "full") + "-RESULTS.txt");
    if (Boolean.getBoolean("bench.report.update")) {
      Files.writeString(expected, report, StandardCharsets.UTF_8);
    }
    assertEquals(Files.readString(expected, StandardCharsets.UTF_8), report);
  }

  private static String masked(String report) {
    return report
        .replaceAll("(?m)^\\| machine \\| .*$", "| machine | (masked) |")
        .replaceAll("(?m)^\\| JVM \\| .*$", "| JVM | (masked) |");
  }

  /** A run that filled every section, with figures that make some goals pass and others fail. */
  static Results results(boolean quick) {
    Results r = new Results();
    r.quick = quick;
    r.apiServerVersion = "v1.37.2";
    r.startedAt = "2026-01-02T03:04:05Z";
    r.seconds = 1234.4;
    r.loadAverageStart = 1.5;
    r.loadAverageEnd = 12.25;
    r.errors.put("load fabric8", "java.io.IOException: `boom`");
    r.renew.add(new Results.Jmh("renew", "elector-lease", 4.1, 6.2, 4.4, 900, "ms/op"));
    r.renew.add(new Results.Jmh("renew", "floor-lease-read-replace", 4.0, 6.0, 4.2, 900, "ms/op"));
    r.renew.add(new Results.Jmh("renew", "elector-memory", 0.004, 0.01, 0.005, 10000, "ms/op"));
    r.renew.add(new Results.Jmh("renew", "client-java", 8.3, 12.5, 8.9, 800, "ms/op"));
    r.acquire.add(new Results.Jmh("acquire", "elector-lease", 5.5, 9.0, 6.1, 15, "ms/op"));
    r.acquire.add(new Results.Jmh("acquire", "elector-configmap", 6.25, 10.0, 7.0, 15, "ms/op"));
    Timings t = quick ? Timings.SCALED : Timings.DEFAULT;
    List<Double> electorStop = List.of(2900.0, 3010.0, 3150.5);
    List<Double> electorRenew = List.of(3050.0, 3090.0, 3120.0);
    for (int n : List.of(3, 10)) {
      r.failovers.add(takeover(Impl.ELECTOR, t, n, electorStop, electorRenew, List.of()));
      r.failovers.add(
          takeover(
              Impl.CLIENT_JAVA, t, n, List.of(4100.0, 4500.0), List.of(5000.0, 5100.0), List.of()));
      r.failovers.add(takeover(Impl.FABRIC8, t, n, List.of(2800.0), List.of(4900.0), List.of()));
      r.failovers.add(
          takeover(Impl.CLIENT_GO, t, n, List.of(3900.0, 4000.0), List.of(4400.0), List.of()));
    }
    List<double[]> breakdown =
        List.of(
            new double[] {0.2, 3.1, 2.5, 0.3, 3.3, 0.1},
            new double[] {0.3, Double.NaN, 2.7, 0.4, 3.5, 0.2});
    r.handovers.add(takeover(Impl.ELECTOR, t, 3, List.of(9.5, 10.25, 12.0), List.of(), breakdown));
    r.handovers.add(
        takeover(Impl.ELECTOR_FABRIC8, t, 3, List.of(13.0, 14.0), List.of(), breakdown));
    r.handovers.add(takeover(Impl.CLIENT_JAVA, t, 3, List.of(1500.0), List.of(), List.of()));
    r.loads.add(load(Impl.ELECTOR, t, Map.of("PATCH", 0.5, "WATCH", 0.02)));
    r.loads.add(load(Impl.ELECTOR_POLL, t, Map.of("PATCH", 0.5, "GET", 4.5)));
    r.loads.add(load(Impl.CLIENT_JAVA, t, Map.of("GET", 5.0, "PUT", 0.5)));
    r.loads.add(load(Impl.FABRIC8, t, Map.of("GET", 4.9, "PUT", 0.5, "LIST", 0.1)));
    r.baseline = Map.of("GET", 0.1, "LIST", 0.05);
    r.baselineSeconds = 30;
    r.scales.add(scale(Impl.ELECTOR, 1000, 1000, 12, 1.8, ""));
    r.scales.add(scale(Impl.ELECTOR_BOUNDED, 1000, 1000, 6, 2.5, ""));
    r.scales.add(scale(Impl.ELECTOR_SHARED, 1000, 990, 9, 2.5, "10 late | slow"));
    r.scales.add(scale(Impl.CLIENT_JAVA, 1000, 1000, 4001, 20.0, "one thread per elector"));
    r.scales.add(scale(Impl.ELECTOR, ScaleSteps.LARGE, 10000, 13, 40.0, ""));
    r.acquireFloors.add(
        new Floors.Acquire(
            Impl.ELECTOR,
            Timings.DEFAULT,
            List.of(3.5, 3.7, 3.6),
            List.of(4.5, 4.7, 6.0),
            List.of(new double[] {0.1, Double.NaN, 0.2, 3.9, 0.3}),
            0));
    r.acquireFloors.add(
        new Floors.Acquire(
            Impl.ELECTOR_FABRIC8,
            Timings.SCALED,
            List.of(3.4),
            List.of(9.0),
            List.of(new double[] {0.1, 2.0, 0.2, 3.9, 0.3}),
            1));
    r.handoverFloor.add(new Floors.HandoverFloor(3.0, 4.0, 3.5, 7.5));
    r.handoverFloor.add(new Floors.HandoverFloor(3.2, 4.4, 3.6, 8.0));
    return r;
  }

  private static Scenarios.Takeover takeover(
      Impl impl,
      Timings t,
      int n,
      List<Double> fromStop,
      List<Double> fromRenew,
      List<double[]> breakdowns) {
    return new Scenarios.Takeover(
        impl, t, n, fromStop, fromRenew, 3, 3 - fromStop.size(), List.of(), 0, breakdowns);
  }

  private static Scenarios.Load load(Impl impl, Timings t, Map<String, Double> perVerb) {
    return new Scenarios.Load(impl, t, 10, 60, perVerb);
  }

  private static Scenarios.Scale scale(
      Impl impl, int n, int onTime, int peak, double acquireSeconds, String note) {
    return new Scenarios.Scale(
        impl, n, n, onTime, 4100, peak - 1, peak, 55.5, 0.75, acquireSeconds, n / 2.0, note);
  }
}
