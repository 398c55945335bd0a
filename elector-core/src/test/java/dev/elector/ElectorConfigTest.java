package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.InMemoryLockStore;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class ElectorConfigTest {
  private final LeaderCallbacks callbacks = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  private ElectorConfig.Builder valid() {
    return ElectorConfig.newBuilder()
        .lock(InMemoryLockStore.create("l").lockFor("me"))
        .callbacks(callbacks);
  }

  @Test
  void defaultsAreClientGoCompatible() {
    ElectorConfig config = valid().build();
    assertEquals(Duration.ofSeconds(15), config.leaseDuration());
    assertEquals(Duration.ofSeconds(10), config.renewDeadline());
    assertEquals(Duration.ofSeconds(2), config.retryPeriod());
    assertEquals(1.2, config.jitter());
    assertEquals(Duration.ofSeconds(5), config.callTimeout());
    assertTrue(config.releaseOnClose());
  }

  /** The lines of the message build() throws with, one problem each, after the count. */
  private static List<String> violations(IllegalArgumentException e) {
    List<String> lines = List.of(e.getMessage().split("\n"));
    int problems = lines.size() - 1;
    assertEquals(
        "Invalid elector configuration ("
            + problems
            + (problems == 1 ? " problem):" : " problems):"),
        lines.get(0));
    return lines.subList(1, lines.size()).stream()
        .map(line -> line.substring("  - ".length()))
        .toList();
  }

  @Test
  void oneExceptionListsEveryViolationWithTheFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ElectorConfig.newBuilder()
                    .lock(InMemoryLockStore.create("l").lockFor(" "))
                    .leaseDuration(Duration.ofSeconds(10))
                    .renewDeadline(Duration.ofSeconds(12))
                    .retryPeriod(Duration.ZERO)
                    .jitter(0.5)
                    .build());
    assertEquals(5, violations(e).size(), e.getMessage());
    assertTrue(e.getMessage().contains("identity of in-memory lock l is blank"), e.getMessage());
    assertTrue(e.getMessage().contains("callbacks are missing"));
    assertTrue(e.getMessage().contains("retryPeriod PT0S must be positive"));
    assertTrue(e.getMessage().contains("jitter 0.5 must be between 1.0 and 10.0"));
    assertTrue(
        e.getMessage()
            .contains(
                "renewDeadline PT12S must be shorter than leaseDuration"
                    + " PT10S; raise leaseDuration or lower renewDeadline"));
  }

  @Test
  void renewDeadlineMustExceedTheLongestJitteredRetry() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> valid().retryPeriod(Duration.ofSeconds(9)).build());
    assertEquals(1, violations(e).size());
    assertTrue(
        violations(e).get(0).contains("jitter 1.2 x retryPeriod PT9S = PT10.8S"), e.getMessage());
  }

  @Test
  void missingLockAndBadTimeoutsAreReported() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ElectorConfig.newBuilder()
                    .callbacks(callbacks)
                    .callTimeout(Duration.ofSeconds(11))
                    .maxBackoff(Duration.ofSeconds(1))
                    .build());
    assertTrue(e.getMessage().contains("lock is missing"));
    assertTrue(e.getMessage().contains("callTimeout PT11S must not exceed renewDeadline"));
    assertTrue(e.getMessage().contains("maxBackoff PT1S must be at least retryPeriod"));
  }

  @Test
  void theDefaultBackoffCapGrowsWithALongRetryPeriod() {
    ElectorConfig slow =
        valid()
            .leaseDuration(Duration.ofSeconds(150))
            .renewDeadline(Duration.ofSeconds(100))
            .retryPeriod(Duration.ofSeconds(20))
            .build();
    assertEquals(Duration.ofSeconds(20), slow.maxBackoff(), "the default cap is the retryPeriod");
    assertEquals(ElectorConfig.DEFAULT_MAX_BACKOFF, valid().build().maxBackoff());
  }

  @Test
  void toBuilderCopiesAndStaysEditable() {
    ElectorConfig base = valid().leaseDuration(Duration.ofSeconds(20)).build();
    ElectorConfig variant = base.toBuilder().renewDeadline(Duration.ofSeconds(15)).build();
    assertEquals(Duration.ofSeconds(20), variant.leaseDuration());
    assertEquals(Duration.ofSeconds(15), variant.renewDeadline());
    assertEquals(Duration.ofSeconds(10), base.renewDeadline());
  }

  @Test
  void aCopyWithShorterTimingsDerivesItsDefaultsAnew() {
    ElectorConfig base = valid().build();
    ElectorConfig fast =
        base.toBuilder()
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofSeconds(1))
            .build();
    assertEquals(Duration.ofMillis(1500), fast.callTimeout(), "renewDeadline / 2 of the copy");
    assertEquals(Duration.ofSeconds(3), fast.closeTimeout(), "renewDeadline of the copy");
    assertEquals(Duration.ofSeconds(1), fast.healthTolerance(), "retryPeriod of the copy");
    assertEquals(ElectorConfig.DEFAULT_MAX_BACKOFF, fast.maxBackoff());
  }

  @Test
  void aCopyWithLongerTimingsDoesNotKeepTheOldDerivedValues() {
    ElectorConfig slow =
        valid().build().toBuilder()
            .leaseDuration(Duration.ofSeconds(90))
            .renewDeadline(Duration.ofSeconds(60))
            .retryPeriod(Duration.ofSeconds(20))
            .build();
    assertEquals(Duration.ofSeconds(30), slow.callTimeout());
    assertEquals(Duration.ofSeconds(60), slow.closeTimeout());
    assertEquals(Duration.ofSeconds(20), slow.maxBackoff(), "at least the retryPeriod");
  }

  @Test
  void aCopyKeepsWhatTheCallerSet() {
    ElectorConfig base =
        valid().callTimeout(Duration.ofSeconds(2)).closeTimeout(Duration.ofSeconds(4)).build();
    ElectorConfig copy = base.toBuilder().leaseDuration(Duration.ofSeconds(30)).build();
    assertEquals(Duration.ofSeconds(2), copy.callTimeout());
    assertEquals(Duration.ofSeconds(4), copy.closeTimeout());
  }

  @Test
  void nullIsRejectedAtTheCall() {
    NullPointerException e =
        assertThrows(
            NullPointerException.class, () -> ElectorConfig.newBuilder().leaseDuration(null));
    assertEquals("leaseDuration", e.getMessage());
  }

  @Test
  void everyRuleReportsInOneOrderWithValueAndFix() {
    IllegalArgumentException unset =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ElectorConfig.newBuilder()
                    .leaseDuration(Duration.ZERO)
                    .renewDeadline(Duration.ofSeconds(-1))
                    .retryPeriod(Duration.ZERO)
                    .maxBackoff(Duration.ZERO)
                    .callTimeout(Duration.ZERO)
                    .closeTimeout(Duration.ZERO)
                    .healthTolerance(Duration.ofSeconds(-1))
                    .jitter(Double.NaN)
                    .build());
    assertEquals(
        List.of(
            "lock is missing; set lock(...) to a Lease, ConfigMap or in-memory lock",
            "callbacks are missing; set callbacks(LeaderCallbacks.of(onStart, onStop))",
            "leaseDuration PT0S must be positive; use a duration such as PT15S (the default)",
            "renewDeadline PT-1S must be positive; use a duration such as PT10S (the default)",
            "retryPeriod PT0S must be positive; use a duration such as PT2S (the default)",
            "maxBackoff PT0S must be positive; use a duration such as PT16S (the default)",
            "callTimeout PT0S must be positive; use a duration such as PT5S",
            "closeTimeout PT0S must be positive; use a duration such as PT5S",
            "healthTolerance PT-1S is negative; use zero or more",
            "jitter NaN must be between 1.0 and 10.0; the default is 1.2"),
        violations(unset));

    IllegalArgumentException crossed =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ElectorConfig.newBuilder()
                    .lock(InMemoryLockStore.create("l").lockFor(""))
                    .callbacks(callbacks)
                    .leaseDuration(Duration.ofSeconds(10))
                    .renewDeadline(Duration.ofSeconds(12))
                    .retryPeriod(Duration.ofSeconds(11))
                    .callTimeout(Duration.ofSeconds(13))
                    .maxBackoff(Duration.ofSeconds(5))
                    .build());
    assertEquals(
        List.of(
            "identity of in-memory lock l is blank; give every candidate a unique identity, for"
                + " example the pod name with a per-process suffix",
            "renewDeadline PT12S must be shorter than leaseDuration PT10S; raise leaseDuration or"
                + " lower renewDeadline",
            "renewDeadline PT12S must be longer than jitter 1.2 x retryPeriod PT11S = PT13.2S;"
                + " raise renewDeadline or lower retryPeriod",
            "callTimeout PT13S must not exceed renewDeadline PT12S, or a hung call could outlive a"
                + " term; lower callTimeout",
            "maxBackoff PT5S must be at least retryPeriod PT11S; raise maxBackoff"),
        violations(crossed));
  }

  @Test
  void aCopyKeepsEverySettingThatIsNotATiming() {
    MonotonicClock clock = () -> 42;
    Clock wallClock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
    Scheduler scheduler = (task, delayNanos) -> CompletableFuture.completedFuture(null);
    Executor executor = Runnable::run;
    ElectorListener listener = new ElectorListener() {};
    CompletableFuture<Void> gate = new CompletableFuture<>();
    RandomGenerator random = new SplittableRandom(1);
    ElectorConfig base =
        valid()
            .jitter(1.5)
            .releaseOnClose(false)
            .watchWhenFollowing(false)
            .clock(clock)
            .wallClock(wallClock)
            .scheduler(scheduler)
            .callbackExecutor(executor)
            .listener(listener)
            .readinessGate(gate)
            .random(random)
            .healthTolerance(Duration.ofSeconds(7))
            .maxBackoff(Duration.ofSeconds(9))
            .build();
    ElectorConfig copy = base.toBuilder().build();
    assertSame(base.lock(), copy.lock());
    assertSame(base.callbacks(), copy.callbacks());
    assertEquals(1.5, copy.jitter());
    assertEquals(false, copy.releaseOnClose());
    assertEquals(false, copy.watchWhenFollowing());
    assertSame(clock, copy.clock());
    assertSame(wallClock, copy.wallClock());
    assertSame(scheduler, copy.scheduler().orElseThrow());
    assertSame(executor, copy.callbackExecutor().orElseThrow());
    assertSame(listener, copy.listener());
    assertSame(gate, copy.readinessGate());
    assertSame(random, copy.random().orElseThrow());
    assertEquals(Duration.ofSeconds(7), copy.healthTolerance());
    assertEquals(Duration.ofSeconds(9), copy.maxBackoff());
    assertTrue(valid().build().scheduler().isEmpty(), "unset stays unset");
  }
}
