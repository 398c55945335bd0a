package dev.elector.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.VirtualTime;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters follow the electors in virtual time: a handover, calls, latency, failures. */
class ElectorMetricsTest {
  private final VirtualTime time = VirtualTime.withSeed(7);
  private final InMemoryLockStore store = InMemoryLockStore.create("orders");
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private LeaderElector a;
  private LeaderElector b;

  private LeaderElector start(FaultyLock lock) {
    return LeaderElector.start(
        time.configure(ElectorConfig.newBuilder())
            .lock(lock)
            .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
            .build());
  }

  @AfterEach
  void close() {
    time.close(
        java.util.stream.Stream.of(a, b)
            .filter(java.util.Objects::nonNull)
            .toArray(LeaderElector[]::new));
  }

  private double gauge(String name, String identity, String... tags) {
    return registry.get(name).tag("identity", identity).tags(tags).gauge().value();
  }

  private double counter(String name, String identity, String... tags) {
    return registry.get(name).tag("identity", identity).tags(tags).functionCounter().count();
  }

  @Test
  void theLeaderGaugeAndTheTermCountersFollowAHandover() {
    FaultyLock lockA = FaultyLock.wrap(store.lockFor("a"), time);
    a = start(lockA);
    time.advanceUntil(a::isLeader, Duration.ofSeconds(5));
    b = start(FaultyLock.wrap(store.lockFor("b"), time));
    time.advance(Duration.ofSeconds(1));
    ElectorMetrics.of(a, b).bindTo(registry);

    assertEquals(1, gauge(ElectorMetrics.LEADER, "a", "name", "orders"));
    assertEquals(0, gauge(ElectorMetrics.LEADER, "b", "name", "orders"));
    assertEquals(1, counter(ElectorMetrics.TERMS_STARTED, "a"));
    assertEquals(0, counter(ElectorMetrics.TERMS_STARTED, "b"));
    assertEquals(1, gauge(ElectorMetrics.FOLLOWING, "b", "mode", "watching"));
    assertEquals(0, gauge(ElectorMetrics.FOLLOWING, "b", "mode", "polling"));
    assertEquals(0, gauge(ElectorMetrics.FOLLOWING, "a", "mode", "watching"), "a leads");
    assertEquals(1, gauge(ElectorMetrics.HEALTHY, "a"));

    time.close(a); // releases: b takes over at once
    time.advanceUntil(b::isLeader, Duration.ofSeconds(5));

    assertEquals(0, gauge(ElectorMetrics.LEADER, "a", "name", "orders"));
    assertEquals(1, gauge(ElectorMetrics.LEADER, "b", "name", "orders"));
    assertEquals(1, counter(ElectorMetrics.TERMS_ENDED, "a", "reason", "closed"));
    assertEquals(0, counter(ElectorMetrics.TERMS_ENDED, "a", "reason", "lock_lost"));
    assertEquals(1, counter(ElectorMetrics.TERMS_STARTED, "b"));
    assertEquals(0, gauge(ElectorMetrics.FOLLOWING, "b", "mode", "watching"), "b leads");
    assertEquals(0, gauge(ElectorMetrics.HEALTHY, "a"), "a is closed");
    assertEquals(
        (double) a.stats().calls(dev.elector.LockCall.RENEW, dev.elector.CallOutcome.OK),
        counter(ElectorMetrics.CALLS, "a", "call", "renew", "outcome", "ok"));
    assertEquals(
        1,
        counter(ElectorMetrics.CALLS, "a", "call", "acquire", "outcome", "ok"),
        "a created the lock");
    assertEquals(
        1,
        counter(ElectorMetrics.CALLS, "a", "call", "release", "outcome", "ok"),
        "a released it on close");
    assertEquals(
        1,
        counter(ElectorMetrics.CALLS, "b", "call", "acquire", "outcome", "ok"),
        "b took the released lock");
  }

  /**
   * A call the server refuses for a reason only configuration fixes (here a missing permission) is
   * counted under outcome=refused, apart from failures that may pass by themselves: the series an
   * alert on missing RBAC watches.
   */
  @Test
  void refusedCallsAreCountedApartFromFailures() {
    FaultyLock lock = FaultyLock.wrap(store.lockFor("a"), time);
    lock.failAll(LockFailure.Kind.FORBIDDEN);
    a = start(lock);
    ElectorMetrics.newBuilder().elector(a).build().bindTo(registry);
    time.advance(Duration.ofSeconds(10));

    double refused = counter(ElectorMetrics.CALLS, "a", "call", "read", "outcome", "refused");
    assertTrue(refused >= 1, "the reads were refused");
    assertEquals(
        (double) a.stats().calls(dev.elector.LockCall.READ, dev.elector.CallOutcome.REFUSED),
        refused);
    assertEquals(0, counter(ElectorMetrics.CALLS, "a", "call", "read", "outcome", "failed"));
  }

  @Test
  void latencyFailuresAndOutcomesAreReadFromTheStats() {
    FaultyLock lock = FaultyLock.wrap(store.lockFor("a"), time);
    lock.latency(Duration.ofMillis(30));
    a = start(lock);
    ElectorMetrics.newBuilder()
        .elector(a, "custom")
        .tags(Tags.of("app", "shop"))
        .build()
        .bindTo(registry);
    time.advanceUntil(a::isLeader, Duration.ofSeconds(5));
    // two renewals: each comes retryPeriod × U[1, jitter] (2 s to 2.4 s) after the one before
    time.advance(Duration.ofMillis(4800));

    FunctionTimer renew =
        registry
            .get(ElectorMetrics.LATENCY)
            .tags("identity", "a", "name", "custom", "app", "shop", "purpose", "renew")
            .functionTimer();
    assertEquals(2, renew.count());
    assertEquals(60, renew.totalTime(TimeUnit.MILLISECONDS), 0.001);
    assertEquals(
        1, registry.get(ElectorMetrics.LATENCY).tags("purpose", "acquire").functionTimer().count());

    lock.failAll(LockFailure.Kind.UNAVAILABLE);
    time.advance(Duration.ofSeconds(3));
    double failed = counter(ElectorMetrics.CALLS, "a", "call", "renew", "outcome", "failed");
    assertTrue(failed >= 1, "renewals failed");
    assertEquals(
        (double) a.stats().calls(dev.elector.LockCall.RENEW, dev.elector.CallOutcome.FAILED),
        failed);
    time.advanceUntil(() -> !a.isLeader(), Duration.ofSeconds(15));
    assertEquals(0, gauge(ElectorMetrics.LEADER, "a"));
    assertEquals(1, counter(ElectorMetrics.TERMS_ENDED, "a", "reason", "renew_deadline_exceeded"));
    time.advance(Duration.ofSeconds(30));
    assertEquals(a.stats().consecutiveFailures(), gauge(ElectorMetrics.FAILURES, "a"));
    assertTrue(gauge(ElectorMetrics.FAILURES, "a") >= 2, "the candidate's calls keep failing");
    lock.heal();
    time.advanceUntil(a::isLeader, Duration.ofMinutes(1));
    assertEquals(0, gauge(ElectorMetrics.FAILURES, "a"));
  }

  @Test
  void theNameTagIsTheLocksNameByDefault() {
    a = start(FaultyLock.wrap(store.lockFor("a"), time));
    assertEquals("orders", ElectorMetrics.lockName(a));
  }

  @Test
  void theBuilderRejectsWhatWouldBreakTheMeters() {
    a = start(FaultyLock.wrap(store.lockFor("a"), time));
    IllegalStateException none =
        assertThrows(IllegalStateException.class, () -> ElectorMetrics.newBuilder().build());
    assertTrue(none.getMessage().contains("no elector was added"), none.getMessage());
    IllegalArgumentException twice =
        assertThrows(
            IllegalArgumentException.class,
            () -> ElectorMetrics.newBuilder().elector(a).elector(a));
    assertTrue(twice.getMessage().contains("added twice"), twice.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ElectorMetrics.newBuilder().elector(a, " "));
    IllegalStateException clash =
        assertThrows(
            IllegalStateException.class,
            () -> ElectorMetrics.newBuilder().elector(a).tags(Tags.of("identity", "x")).build());
    assertTrue(clash.getMessage().contains("\"identity\" clashes"), clash.getMessage());
  }
}
