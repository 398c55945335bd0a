package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.TermEnd;
import dev.elector.examples.ProcessEvent;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's whole process stalls (SIGSTOP, as a long GC pause or a frozen VM would) for longer
 * than leaseDuration, then resumes. Meanwhile another candidate takes over. After resuming, the old
 * leader does not act as leader: its term's deadline has passed, so {@code isActive()} is false
 * before its elector even runs, and a write of its that was in flight is refused by the fenced
 * resource, whose newest token came from the new leader.
 */
@KubeTest
class StalledLeaderIT {
  private static final String FENCED = "fenced-resource";
  private static final Duration PAUSE = Duration.ofSeconds(6);

  @TempDir Path work;

  private record Event(long nanos, String kind, Map<String, String> fields) {}

  @Test
  void aLeaderResumingFromAPauseLongerThanItsLeaseNoLongerActsAndItsTokenIsStale(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    Path output = work.resolve("stalled.out");
    Process stalled = startStalledCandidate(cluster, namespace, output);
    try (Cohort cohort = new Cohort(cluster, namespace)) {
      Event leading = await(output, "leading", Duration.ofSeconds(30));
      cohort.start(1);
      await(output, e -> e.kind().equals("accepted"), Duration.ofSeconds(10), "accepted");

      long paused = System.nanoTime();
      signal(stalled, "STOP");
      Cohort.Member next = cohort.awaitLeader(Duration.ofSeconds(15));
      long nextToken = next.elector.currentTerm().orElseThrow().fencingToken();
      FencedResource fenced = new FencedResource(cluster.admin(), namespace.name(), FENCED);
      assertEquals(FencedResource.Outcome.ACCEPTED, fenced.write(nextToken, next.name));
      // The scenario itself: the leader stays stopped for PAUSE, longer than its lease.
      Thread.sleep(Math.max(0, PAUSE.toMillis() - (System.nanoTime() - paused) / 1_000_000));
      long resumed = System.nanoTime();
      signal(stalled, "CONT");
      Event stopped = await(output, "stopped", Duration.ofSeconds(10));
      // Its worker, resumed, finishes what it had begun and then finds the term over: after that
      // it acts no more.
      await(
          output,
          e -> e.kind().equals("inactive") && e.nanos() >= resumed,
          Duration.ofSeconds(10),
          "inactive after resuming");

      long staleToken = Long.parseLong(leading.fields().get("token"));
      long activeUntil = Long.parseLong(stopped.fields().get("activeUntil"));
      List<Event> afterResume = events(output).stream().filter(e -> e.nanos() >= resumed).toList();
      Figures.record("stall", "pause", Figures.millis(Duration.ofNanos(resumed - paused)));
      Figures.record(
          "stall",
          "stalled-term-deadline-to-new-term",
          Figures.millis(
              Duration.ofNanos(cohort.timeline.terms().get(0).startNanos() - activeUntil)));
      Figures.record(
          "stall",
          "resume-to-elector-step-down",
          Figures.millis(Duration.ofNanos(stopped.nanos() - resumed)));
      Figures.record("stall", "tokens", "stalled " + staleToken + ", new leader " + nextToken);
      Figures.record(
          "stall", "events-after-resume", afterResume.stream().map(Event::kind).toList());

      assertEquals(TermEnd.RENEW_DEADLINE_EXCEEDED.name(), stopped.fields().get("reason"));
      assertTrue(activeUntil <= resumed, "the term was over before the process resumed");
      assertFalse(
          events(output).stream()
              .anyMatch(
                  e ->
                      e.kind().equals("act")
                          && Long.parseLong(e.fields().get("checkedAt")) >= activeUntil),
          "no work began after the term's deadline: " + afterResume);
      assertEquals(
          nextToken,
          fenced.newestToken(),
          "no stale write took effect after the new" + " leader's: " + afterResume);
      assertEquals(next.name, fenced.holder());
      assertTrue(staleToken < nextToken, "the stale token is older than the new leader's");
      assertEquals(
          FencedResource.Outcome.REFUSED_STALE_TOKEN,
          fenced.write(staleToken, "stalled"),
          "the fenced resource refuses the stale token");
      assertEquals(List.of(next), cohort.leaders());

      cohort.timeline.started("stalled", staleToken, leading.nanos());
      cohort.timeline.ended(
          "stalled", TermEnd.RENEW_DEADLINE_EXCEEDED, Math.min(stopped.nanos(), activeUntil));
      cohort.timeline.assertNoOverlap();
    } finally {
      signal(stalled, "CONT");
      stalled.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private Process startStalledCandidate(KubeCluster cluster, KubeNamespace namespace, Path output)
      throws Exception {
    KubeIdentity identity = cluster.newIdentity(namespace, "stalled");
    List<V1PolicyRule> rules = new ArrayList<>(KubeCluster.roleRules(Cohort.SHIPPED_LEASE_RBAC));
    rules.add(
        new V1PolicyRule()
            .apiGroups(List.of(""))
            .resources(List.of("configmaps"))
            .resourceNames(List.of(FENCED))
            .verbs(List.of("get", "update")));
    rules.add(
        new V1PolicyRule()
            .apiGroups(List.of(""))
            .resources(List.of("configmaps"))
            .verbs(List.of("create")));
    cluster.grant(identity, namespace, rules);
    Path kubeconfig = work.resolve("stalled.kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml(identity.token()));
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-Xmx128m",
            "-cp",
            System.getProperty("java.class.path"),
            "-Dorg.slf4j.simpleLogger.logFile=System.err",
            CandidateMain.class.getName(),
            "stalled",
            namespace.name(),
            Cohort.LOCK,
            kubeconfig.toString(),
            FENCED)
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
  }

  private static void signal(Process process, String signal) throws Exception {
    new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
        .start()
        .waitFor(5, TimeUnit.SECONDS);
  }

  private static List<Event> events(Path output) throws IOException {
    List<Event> events = new ArrayList<>();
    if (!Files.exists(output)) {
      return events;
    }
    for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
      ProcessEvent.parse(line)
          .ifPresent(e -> events.add(new Event(e.monoNanos(), e.kind(), e.fields())));
    }
    return events;
  }

  private static Event await(Path output, String kind, Duration limit) throws Exception {
    return await(output, e -> e.kind().equals(kind), limit, kind);
  }

  private static Event await(Path output, Predicate<Event> match, Duration limit, String what)
      throws Exception {
    try {
      return Awaitility.await("a '" + what + "' event")
          .atMost(limit)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> events(output).stream().filter(match).findFirst(), Optional::isPresent)
          .orElseThrow();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "no '" + what + "' event within " + limit + ":\n" + Files.readString(output), e);
    }
  }
}
