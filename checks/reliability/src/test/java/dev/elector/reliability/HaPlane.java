package dev.elector.reliability;

import dev.elector.testenv.HaControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Assumptions;

/**
 * The HA scenarios' control plane ({@link HaControlPlane}: one etcd, several API servers behind a
 * balancer) with a mixed cohort on it, and the figures every HA scenario prints.
 */
final class HaPlane {
  /** {@code -Delector.ha.long=true}: the long versions of the HA and APF scenarios. */
  static final boolean LONG = Boolean.getBoolean("elector.ha.long");

  /**
   * The timings of the rolling restart: the defaults in the long version, unless {@code
   * -Delector.ha.short-timings=true} keeps the shortened ones (to compare with the short version).
   */
  static Cohort.Timings rollingRestartTimings() {
    return LONG && !Boolean.getBoolean("elector.ha.short-timings")
        ? Cohort.Timings.DEFAULTS
        : Cohort.Timings.SHORT;
  }

  private HaPlane() {}

  /**
   * The control plane binary: {@code ELECTOR_APISERVER_BIN}, else what {@code testenv/build.sh}
   * prints (it builds once, then answers from its cache).
   */
  static Path binary() throws IOException, InterruptedException {
    String set = System.getenv("ELECTOR_APISERVER_BIN");
    if (set != null && !set.isBlank()) {
      return Path.of(set);
    }
    Process build =
        new ProcessBuilder("bash", Path.of("..", "..", "testenv", "build.sh").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (build.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException(
          "testenv/build.sh failed (exit " + build.exitValue() + "); run it by hand to see why");
    }
    return Path.of(out.substring(out.lastIndexOf('\n') + 1));
  }

  /**
   * Starts the HA control plane; aborts the test (as every cluster test) when {@code
   * ELECTOR_SKIP_CLUSTER_TESTS=true}.
   */
  static HaControlPlane start(int servers, IntFunction<List<String>> apiserverArgs)
      throws IOException, InterruptedException {
    Assumptions.assumeFalse(
        "true".equals(System.getenv("ELECTOR_SKIP_CLUSTER_TESTS")),
        "ELECTOR_SKIP_CLUSTER_TESTS=true: Kubernetes tests skipped on request");
    return HaControlPlane.start(binary(), servers, Duration.ofMinutes(2), apiserverArgs);
  }

  /** The kinds of candidate a scenario mixes on one Lease. */
  enum Kind {
    JAVA("Elector (client-java)"),
    FABRIC8("Elector (fabric8)"),
    GO("client-go");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  /** Adds a candidate of {@code kind} named {@code name} to {@code cohort}. */
  static Cohort.Candidate add(Cohort cohort, Kind kind, String name, Path work) throws Exception {
    return switch (kind) {
      case JAVA -> cohort.add(name, b -> b);
      case FABRIC8 -> cohort.addFabric8(name, b -> b);
      case GO -> cohort.addGo(name, GoCandidate.binary(), work, true);
    };
  }

  /** A work directory for client-go candidates' kubeconfigs and logs. */
  static Path work(String scenario) throws IOException {
    Path dir = Path.of("target", "ha", scenario);
    Files.createDirectories(dir);
    return dir;
  }

  /** A fresh namespace on {@code cluster}. */
  static KubeNamespace namespace(KubeCluster cluster, String scenario) throws Exception {
    return cluster.createNamespace(scenario);
  }

  /**
   * Waits until exactly one candidate of any kind leads, and its term is on the timeline; fails on
   * two.
   */
  static Cohort.Candidate awaitOneLeader(Cohort cohort, Duration limit) {
    return Waiting.until(
        limit,
        Duration.ofMillis(10),
        () -> {
          List<Cohort.Candidate> leading = cohort.allLeading();
          if (leading.size() > 1) {
            throw new AssertionError("two leaders at once: " + leading);
          }
          return leading.stream().findFirst().filter(cohort::onTimeline);
        },
        () -> "no leader within " + limit + "; " + cohort.timeline.terms());
  }

  /**
   * Adds a candidate of {@code leaderKind} named "leader" through the cohort's current server,
   * checks that it alone leads, then adds a follower of each other kind; returns the leader.
   */
  static Cohort.Candidate leaderThenFollowers(Cohort cohort, Kind leaderKind, Path work)
      throws Exception {
    Cohort.Candidate leader = add(cohort, leaderKind, "leader", work);
    Cohort.Candidate first = awaitOneLeader(cohort, Duration.ofSeconds(20));
    if (!first.equals(leader)) {
      throw new AssertionError(first + " leads, not " + leader);
    }
    for (Kind kind : Kind.values()) {
      if (kind != leaderKind) {
        add(cohort, kind, "follower-" + kind.name().toLowerCase(Locale.ROOT), work);
      }
    }
    return leader;
  }

  /** Requests so far per candidate: Elector's lock calls, client-go's HTTP requests. */
  static Map<String, Long> requests(Cohort cohort) throws Exception {
    Map<String, Long> requests = new java.util.LinkedHashMap<>(cohort.callsByMember());
    for (GoCandidate go : cohort.goCandidates()) {
      requests.put(go.name(), go.stats(Duration.ofSeconds(5)).requests());
    }
    return requests;
  }

  /** Records the figures every HA scenario reports, over the window since {@code start}. */
  static void figures(
      String scenario, Cohort cohort, int termsBefore, Map<String, Long> requestsBefore, long start)
      throws Exception {
    Duration window = Duration.ofNanos(System.nanoTime() - start);
    int changes = cohort.timeline.terms().size() - termsBefore;
    Figures.record(scenario, "window", Figures.millis(window));
    Figures.record(scenario, "leadership-changes", changes);
    Figures.record(scenario, "max-overlap", Figures.millis(cohort.timeline.maxOverlap()));
    for (Cohort.Member m : cohort.members()) {
      Figures.record(
          scenario,
          m.name() + "-longest-renewal-gap",
          Figures.millis(m.renewals.longestGap())
              + " (slowest renewal "
              + Figures.millis(m.renewals.slowest())
              + ")");
    }
    Map<String, Long> after = requests(cohort);
    List<String> parts = new ArrayList<>();
    after.forEach(
        (name, n) -> {
          long d = n - requestsBefore.getOrDefault(name, 0L);
          parts.add(name + "=" + d + " (" + Figures.perSecond(d, window) + ")");
        });
    Figures.record(scenario, "requests", String.join(", ", parts));
  }
}
