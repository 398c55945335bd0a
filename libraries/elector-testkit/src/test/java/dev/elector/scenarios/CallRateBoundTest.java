package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The documented bound: in any interval T a candidate makes at most 4 + 2 × T / retryPeriod lock
 * calls, whatever fails. Each failure mode runs for one virtual hour with three candidates.
 */
class CallRateBoundTest {
  private static final Duration RETRY = ElectorConfig.DEFAULT_RETRY_PERIOD;

  enum FailureMode {
    HEALTHY(e -> {}),
    ALL_CALLS_UNAVAILABLE(
        e -> e.candidates.values().forEach(c -> c.lock.failAll(LockFailure.Kind.UNAVAILABLE))),
    ALL_CALLS_FORBIDDEN(
        e -> e.candidates.values().forEach(c -> c.lock.failAll(LockFailure.Kind.FORBIDDEN))),
    WRITES_FORBIDDEN(
        e -> e.candidates.values().forEach(c -> c.lock.failWrites(LockFailure.Kind.FORBIDDEN))),
    HALF_OF_CALLS_FAIL(
        e ->
            e.candidates
                .values()
                .forEach(
                    c ->
                        c.lock.failRandomly(0.5, LockFailure.Kind.UNAVAILABLE, c.name.hashCode()))),
    EVERY_WRITE_CONFLICTS(
        e -> e.candidates.values().forEach(c -> c.lock.injectConflicts(Integer.MAX_VALUE))),
    CALLS_HANG(e -> e.candidates.values().forEach(c -> c.lock.hang())),
    LATENCY_NEAR_RENEW_DEADLINE(
        e -> e.candidates.values().forEach(c -> c.lock.latency(Duration.ofMillis(4900)))),
    LOCK_KEEPS_BEING_LOST(
        e ->
            e.everySecond =
                () -> {
                  var now = e.time.newWallClock().instant();
                  long next = e.store.current().map(r -> r.leaderTransitions() + 1).orElse(0L);
                  e.store.overwrite(
                      new LeaderRecord("hijacker", Duration.ofSeconds(1), now, now, next));
                }),
    LOCK_KEEPS_BEING_DELETED(e -> e.everySecond = e.store::delete),
    RECORD_KEEPS_BEING_GARBLED(e -> e.everySecond = () -> e.store.corrupt("garbled JSON"));

    @SuppressWarnings("ImmutableEnumChecker") // stateless lambdas: they only set up a fixture
    final Consumer<Fixture> apply;

    FailureMode(Consumer<Fixture> apply) {
      this.apply = apply;
    }
  }

  static final class Fixture extends ElectionFixture {
    Runnable everySecond = () -> {};

    Fixture(long seed) {
      super(seed);
    }
  }

  @ParameterizedTest
  @EnumSource(FailureMode.class)
  void callsStayWithinTheBound(FailureMode mode) {
    Fixture election = new Fixture(mode.name().hashCode());
    election.start("a");
    election.start("b");
    election.start("c");
    election.advance(Duration.ofSeconds(30));
    mode.apply.accept(election);

    for (int second = 0; second < 3600; second++) {
      election.everySecond.run();
      election.advance(Duration.ofSeconds(1));
    }

    for (ElectionFixture.Candidate c : election.candidates.values()) {
      for (Duration window :
          new Duration[] {
            Duration.ofMillis(1),
            RETRY,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            Duration.ofHours(1)
          }) {
        long bound =
            ElectorConfig.CALL_BURST
                + ElectorConfig.CALLS_PER_RETRY_PERIOD * (window.toNanos() / RETRY.toNanos());
        long worst = c.lock.maxCallsInAnyWindow(window);
        assertTrue(
            worst <= bound,
            mode + ": " + c.name + " made " + worst + " calls in " + window + ", bound " + bound);
      }
    }
    election.timeline.assertNoOverlap();
  }

  @org.junit.jupiter.api.Test
  void aConfigurationProblemBacksOffToTheCap() {
    long calls = callsInTenMinutesOfALoneCandidate(FailureMode.ALL_CALLS_FORBIDDEN);
    // capped back-off: one call every 16 s to 19.2 s
    long atMost = 600 / ElectorConfig.DEFAULT_MAX_BACKOFF.toSeconds() + 1;
    long atLeast = (long) (600 / (16 * 1.2));
    assertTrue(calls <= atMost, calls + " calls in 10 minutes, at most " + atMost);
    assertTrue(calls >= atLeast, "still retrying, " + calls + " calls, at least " + atLeast);
  }

  /**
   * A transient failure backs off only while the lock is someone else's anyway. A lone candidate
   * whose own record is the last it saw could lead as soon as a call gets through, so it tries once
   * a retry period (plus the call timeout while calls hang): the end of an outage costs it at most
   * a retry period, and its calls stay within the bound.
   */
  @ParameterizedTest
  @EnumSource(
      value = FailureMode.class,
      names = {"ALL_CALLS_UNAVAILABLE", "CALLS_HANG"})
  void transientErrorsAreRetriedEachRetryPeriodOnceTheLockCouldBeTaken(FailureMode mode) {
    long calls = callsInTenMinutesOfALoneCandidate(mode);
    double pause = mode == FailureMode.CALLS_HANG ? 5 : 0; // the call timeout, renewDeadline / 2
    long atMost = (long) (600 / (RETRY.toSeconds() + pause)) + 1;
    long atLeast = (long) (600 / (RETRY.toSeconds() * 1.2 + pause));
    assertTrue(calls <= atMost, mode + ": " + calls + " calls in 10 minutes, at most " + atMost);
    assertTrue(calls >= atLeast, mode + ": " + calls + " calls in 10 minutes, at least " + atLeast);
  }

  private static long callsInTenMinutesOfALoneCandidate(FailureMode mode) {
    Fixture election = new Fixture(100 + mode.name().hashCode());
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(30));
    mode.apply.accept(election);
    election.advance(Duration.ofMinutes(5));
    long from = election.time.clock().nanos();
    election.advance(Duration.ofMinutes(10));
    return a.lock.callsBetween(from, election.time.clock().nanos());
  }

  /**
   * A candidate that may read the lock but not write it (read-only RBAC) must back off as well: its
   * reads succeed, but a read that only leads to another failing write is no progress.
   */
  @org.junit.jupiter.api.Test
  void aCandidateThatMayReadButNotWriteBacksOffToo() {
    Fixture election = new Fixture(200);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.failWrites(LockFailure.Kind.FORBIDDEN);
    a.start(b -> b);
    election.advance(Duration.ofMinutes(5));

    long from = election.time.clock().nanos();
    election.advance(Duration.ofMinutes(10));
    long calls = a.lock.callsBetween(from, election.time.clock().nanos());

    // a read and a write per capped back-off of 16 s to 19.2 s
    long atMost = 2 * (600 / ElectorConfig.DEFAULT_MAX_BACKOFF.toSeconds() + 1);
    assertTrue(calls <= atMost, calls + " calls in 10 minutes, at most " + atMost);
    assertTrue(calls >= 2 * (long) (600 / (16 * 1.2)), "still retrying: " + calls);
    assertTrue(!a.leading());
  }
}
