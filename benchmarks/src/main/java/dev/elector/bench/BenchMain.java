package dev.elector.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the whole comparison against one local control plane and writes RESULTS.md and results.svg.
 * {@code --quick} is the few-minute CI variant; without it, the full run. {@code --latency} runs
 * only the round-trip floors, Elector's acquires and its handovers (a few minutes), for work on
 * latency.
 *
 * <p>Usage: {@code BenchMain [--quick] [--latency] [--out DIR] [--binary PATH]}; {@code --help}
 * says more.
 */
public final class BenchMain {
  private static final Logger log = LoggerFactory.getLogger(BenchMain.class);
  private static final List<Impl> ANCHORED =
      List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8, Impl.CLIENT_JAVA, Impl.FABRIC8, Impl.CLIENT_GO);

  private BenchMain() {}

  /** The command line, as picocli reads it. */
  @Command(
      name = "BenchMain",
      description =
          "Runs the whole comparison against one local control plane and writes RESULTS.md and"
              + " results.svg.")
  static final class Cli {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;

    @Option(names = "--quick", description = "the few-minute CI variant")
    boolean quick;

    @Option(
        names = "--latency",
        description = "only the round-trip floors, Elector's acquires and its handovers")
    boolean latency;

    @Option(
        names = "--out",
        paramLabel = "DIR",
        description = "where RESULTS.md and results.svg go (default: ${DEFAULT-VALUE})")
    Path out = Path.of("benchmarks");

    @Option(
        names = "--binary",
        paramLabel = "PATH",
        description = "the local control plane's binary (default: ${DEFAULT-VALUE})")
    Path binary = Cluster.defaultBinary();
  }

  public static void main(String[] args) throws Exception {
    Cli cli = new Cli();
    if (!BenchCommandLine.parseOrExit(cli, args)) {
      return;
    }
    Path out = cli.out;
    Results results = run(cli.quick, cli.latency, out, cli.binary);
    System.out.println(
        "wrote "
            + out.resolve("RESULTS.md")
            + " and "
            + out.resolve("results.svg")
            + " in "
            + Math.round(results.seconds)
            + " s");
    System.exit(0); // anchors' non-daemon pools must not keep the JVM alive
  }

  /** Runs everything and writes the report into {@code out}. */
  static Results run(boolean quick, Path out, Path binary) throws Exception {
    return run(quick, false, out, binary);
  }

  /**
   * Runs everything, or with {@code latencyOnly} only the floors, the acquires and Elector's
   * handovers, and writes the report into {@code out}.
   */
  static Results run(boolean quick, boolean latencyOnly, Path out, Path binary) throws Exception {
    long t0 = System.nanoTime();
    Results results = new Results();
    results.quick = quick;
    results.startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    results.loadAverageStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Files.createDirectories(out);
    try (Cluster cluster = Cluster.start(binary)) {
      results.apiServerVersion = cluster.version();
      String namespace =
          cluster.createNamespace("bench-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36));
      System.setProperty(BenchSetup.KUBECONFIG, cluster.kubeconfig().toString());
      System.setProperty(BenchSetup.NAMESPACE, namespace);

      if (!latencyOnly) {
        step(results, "jmh", () -> jmh(results, quick));
      }

      Floors floors = new Floors(cluster, namespace);
      int floorReps = quick ? 6 : 40;
      int floorWarmup = quick ? 2 : 5;
      step(
          results,
          "floor handover",
          () -> results.handoverFloor.addAll(floors.handover(floorReps, floorWarmup)));
      for (Timings t : List.of(Timings.DEFAULT, Timings.SCALED)) {
        for (Impl impl : List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8)) {
          step(
              results,
              "floor acquire " + impl.key + " " + t.shortName(),
              () -> results.acquireFloors.add(floors.acquire(impl, t, floorReps, floorWarmup)));
        }
      }

      Scenarios scenarios = new Scenarios(cluster, namespace);
      if (latencyOnly) {
        for (Timings t : List.of(Timings.DEFAULT, Timings.SCALED)) {
          for (Impl impl : List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8)) {
            step(
                results,
                "handover " + impl.key + " " + t.shortName(),
                () -> results.handovers.add(scenarios.takeover(impl, t, 3, quick ? 8 : 20, true)));
          }
        }
        results.loadAverageEnd =
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        results.seconds = (System.nanoTime() - t0) / 1e9;
        new Report(results).write(out);
        return results;
      }
      List<Timings> takeoverTimings =
          quick ? List.of(Timings.SCALED) : List.of(Timings.DEFAULT, Timings.SCALED);
      int reps = quick ? 3 : 20;
      List<Integer> sizes = quick ? List.of(3) : List.of(3, 10);
      for (Timings t : takeoverTimings) {
        for (int n : sizes) {
          for (Impl impl : ANCHORED) {
            step(
                results,
                "failover " + impl.key + " n=" + n + " " + t.shortName(),
                () -> results.failovers.add(scenarios.takeover(impl, t, n, reps, false)));
          }
        }
        for (Impl impl : ANCHORED) {
          step(
              results,
              "handover " + impl.key + " " + t.shortName(),
              () -> results.handovers.add(scenarios.takeover(impl, t, 3, reps, true)));
        }
      }

      Duration window = quick ? Duration.ofSeconds(5) : Duration.ofSeconds(60);
      Timings loadTimings = quick ? Timings.SCALED : Timings.DEFAULT;
      step(
          results,
          "baseline",
          () -> {
            Thread.sleep(quick ? 1000 : 6000);
            Duration baselineWindow = quick ? Duration.ofSeconds(3) : Duration.ofSeconds(30);
            results.baseline = scenarios.baseline(baselineWindow);
            results.baselineSeconds = baselineWindow.toSeconds();
          });
      for (Impl impl :
          List.of(
              Impl.ELECTOR,
              Impl.ELECTOR_POLL,
              Impl.ELECTOR_SHARED,
              Impl.ELECTOR_FABRIC8,
              Impl.CLIENT_JAVA,
              Impl.FABRIC8,
              Impl.CLIENT_GO)) {
        step(
            results,
            "load " + impl.key,
            () ->
                results.loads.add(scenarios.load(impl, loadTimings, 10, window, results.baseline)));
      }

      ScaleSteps.run(results, scenarios, quick, ScaleSteps.plan(quick));
    }
    results.loadAverageEnd = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    results.seconds = (System.nanoTime() - t0) / 1e9;
    new Report(results).write(out);
    return results;
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void step(Results results, String name, Step step) {
    log.info("=== {}", name);
    try {
      step.run();
    } catch (Exception | Error e) {
      log.error("{} failed", name, e);
      results.errors.put(name, e.toString());
    }
  }

  private static void jmh(Results results, boolean quick) throws Exception {
    String kubeconfig = System.getProperty(BenchSetup.KUBECONFIG);
    String namespace = System.getProperty(BenchSetup.NAMESPACE);
    ChainedOptionsBuilder renew =
        new OptionsBuilder()
            .include(RenewBenchmark.class.getName() + ".renew")
            .forks(quick ? 0 : 1)
            .warmupIterations(quick ? 1 : 2)
            .warmupTime(TimeValue.seconds(quick ? 1 : 2))
            .measurementIterations(quick ? 1 : 5)
            .measurementTime(TimeValue.seconds(quick ? 1 : 2))
            .jvmArgsAppend(
                "-D" + BenchSetup.KUBECONFIG + "=" + kubeconfig,
                "-D" + BenchSetup.NAMESPACE + "=" + namespace)
            .shouldFailOnError(true);
    collect(new Runner(renew.build()).run(), results.renew);
    ChainedOptionsBuilder acquire =
        new OptionsBuilder()
            .include(AcquireBenchmark.class.getName() + ".acquire")
            .forks(quick ? 0 : 1)
            .warmupIterations(quick ? 1 : 2)
            .measurementIterations(quick ? 2 : 15)
            .jvmArgsAppend(
                "-D" + BenchSetup.KUBECONFIG + "=" + kubeconfig,
                "-D" + BenchSetup.NAMESPACE + "=" + namespace)
            .shouldFailOnError(true);
    collect(new Runner(acquire.build()).run(), results.acquire);
  }

  private static void collect(Collection<RunResult> runs, List<Results.Jmh> into) {
    List<Results.Jmh> rows = new ArrayList<>();
    for (RunResult run : runs) {
      Statistics s = run.getPrimaryResult().getStatistics();
      rows.add(
          new Results.Jmh(
              run.getParams().getBenchmark(),
              run.getParams().getParam("subject"),
              s.getPercentile(50),
              s.getPercentile(95),
              s.getMean(),
              s.getN(),
              run.getPrimaryResult().getScoreUnit()));
    }
    into.addAll(rows);
  }
}
