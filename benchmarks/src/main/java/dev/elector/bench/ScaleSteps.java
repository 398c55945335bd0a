package dev.elector.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The scale scenarios of a run: n electors on n Leases in one JVM for each implementation, at 10,
 * 100 and 1,000 (10 and 100 in quick mode) at client-go's default timings, and in full mode one
 * point of 10,000 electors built with default builders (which share one watch of the namespace's
 * Leases) at {@link Timings#LONG}: at the default timings 10,000 locks need 5,000 renewals/s, more
 * than one local API server on this machine serves. {@link BenchMain} runs them as part of the
 * whole comparison; {@link #main} runs them alone.
 *
 * <p>Usage alone: {@code ScaleSteps [--quick] [--out DIR] [--binary PATH] [--impl KEY]... [--n
 * N]...}; {@code --impl} and {@code --n} keep only the planned points they name (for example {@code
 * --impl elector --n 1000 --n 10000}).
 */
final class ScaleSteps {
  private static final Logger log = LoggerFactory.getLogger(ScaleSteps.class);

  /** The implementations measured at every size, in order. */
  static final List<Impl> IMPLS =
      List.of(
          Impl.ELECTOR, Impl.ELECTOR_BOUNDED, Impl.ELECTOR_SHARED, Impl.CLIENT_JAVA, Impl.FABRIC8);

  /** The largest point: Elector with default builders, full mode only. */
  static final int LARGE = 10_000;

  /** One planned scale point. */
  record Point(Impl impl, int electors, Timings timings, Duration cap) {}

  private ScaleSteps() {}

  /** The points a run measures, in order. */
  static List<Point> plan(boolean quick) {
    List<Integer> sizes = quick ? List.of(10, 100) : List.of(10, 100, 1000);
    Duration cap = quick ? Duration.ofSeconds(30) : Duration.ofSeconds(90);
    List<Point> points = new ArrayList<>();
    for (Impl impl : IMPLS) {
      for (int n : sizes) {
        points.add(new Point(impl, n, Timings.DEFAULT, cap));
      }
    }
    if (!quick) {
      points.add(new Point(Impl.ELECTOR, LARGE, Timings.LONG, Duration.ofMinutes(5)));
    }
    return points;
  }

  /** Measures {@code points} into {@code results}; a failed point is recorded as an error. */
  static void run(Results results, Scenarios scenarios, boolean quick, List<Point> points) {
    Duration window = quick ? Duration.ofSeconds(4) : Duration.ofSeconds(30);
    Duration settle = quick ? Duration.ofSeconds(1) : Duration.ofSeconds(6);
    for (Point p : points) {
      String name = "scale " + p.impl().key + " " + p.electors();
      log.info("=== {}", name);
      // at least three renewals of every lock fall in the window
      Duration pointWindow = max(window, p.timings().retry().multipliedBy(3));
      try {
        results.scales.add(
            scenarios.scale(p.impl(), p.timings(), p.electors(), pointWindow, p.cap(), settle));
      } catch (Exception | Error e) {
        log.error("{} failed", name, e);
        results.errors.put(name, e.toString());
      }
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** The command line of {@link #main}, as picocli reads it. */
  @Command(
      name = "ScaleSteps",
      description = "Runs only the scale scenarios and writes their report.")
  static final class Cli {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;

    @Option(names = "--quick", description = "the quick plan: 10 and 100 electors")
    boolean quick;

    @Option(
        names = "--out",
        paramLabel = "DIR",
        description = "where RESULTS.md goes (default: ${DEFAULT-VALUE})")
    Path out = Path.of("target", "bench-scale");

    @Option(
        names = "--binary",
        paramLabel = "PATH",
        description = "the local control plane's binary (default: ${DEFAULT-VALUE})")
    Path binary = Cluster.defaultBinary();

    @Option(
        names = "--impl",
        paramLabel = "KEY",
        description = "keep only the planned points of this implementation; may be repeated")
    List<String> impls = new ArrayList<>();

    @Option(
        names = "--n",
        paramLabel = "N",
        description = "keep only the planned points of this many electors; may be repeated")
    List<Integer> sizes = new ArrayList<>();
  }

  /** Runs only the scale scenarios and writes their report into {@code --out}. */
  public static void main(String[] args) throws Exception {
    Cli cli = new Cli();
    if (!BenchCommandLine.parseOrExit(cli, args)) {
      return;
    }
    boolean quick = cli.quick;
    Path out = cli.out;
    Path binary = cli.binary;
    List<String> impls = cli.impls;
    List<Integer> sizes = cli.sizes;
    List<Point> points =
        plan(quick).stream()
            .filter(p -> impls.isEmpty() || impls.contains(p.impl().key))
            .filter(p -> sizes.isEmpty() || sizes.contains(p.electors()))
            .toList();
    if (points.isEmpty()) {
      throw new IllegalArgumentException(
          "no planned scale point matches --impl "
              + impls
              + " --n "
              + sizes
              + "; planned: "
              + plan(quick));
    }
    long t0 = System.nanoTime();
    Results results = new Results();
    results.quick = quick;
    Files.createDirectories(out);
    try (Cluster cluster = Cluster.start(binary)) {
      results.apiServerVersion = cluster.version();
      String namespace =
          cluster.createNamespace("scale-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36));
      run(results, new Scenarios(cluster, namespace), quick, points);
    }
    results.seconds = (System.nanoTime() - t0) / 1e9;
    new Report(results).write(out);
    results.scales.forEach(s -> System.out.println(s));
    System.out.println("errors: " + results.errors);
    System.out.println(
        "wrote " + out.resolve("RESULTS.md") + " in " + Math.round(results.seconds) + " s");
    System.exit(0); // anchors' non-daemon pools must not keep the JVM alive
  }
}
