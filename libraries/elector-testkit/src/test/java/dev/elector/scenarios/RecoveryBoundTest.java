package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.testkit.LeadershipTimeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leaderless no longer than safety requires, fault by fault, in virtual time. For each fault the
 * test computes the earliest instant at which a candidate may safely lead, from the lock's own
 * history as the server keeps it: the end of every lease a landed write claimed (a release ends
 * them), and never before the server is back. The excess is the time from that instant to the start
 * of the next term; it must stay within one retry period with jitter (no round trip costs anything
 * here). Each fault runs on five seeds, at default timings and at short ones, with three candidates
 * watching the lock, and no two terms may overlap.
 */
class RecoveryBoundTest {
  private static final int SEEDS = 5;

  /** The two timings of the reliability tables. */
  enum Timings {
    DEFAULT(15, 10, 2),
    SHORT(3, 2, 0.5);

    final Duration lease;
    final Duration renewDeadline;
    final Duration retry;

    Timings(double lease, double renewDeadline, double retry) {
      this.lease = seconds(lease);
      this.renewDeadline = seconds(renewDeadline);
      this.retry = seconds(retry);
    }

    ElectorConfig.Builder apply(ElectorConfig.Builder b) {
      return b.leaseDuration(lease).renewDeadline(renewDeadline).retryPeriod(retry);
    }

    /** The goal for the excess: retryPeriod × jitter (the default 1.2). */
    Duration allowedExcess() {
      return seconds(retry.toNanos() * 1.2 / 1e9);
    }
  }

  /** One fault: what it does to the candidates, and for how long. */
  enum Fault {
    /**
     * Every call and watch refused, for longer than the lease, then the server is back while the
     * watches are still reconnecting.
     */
    OUTAGE {
      @Override
      Duration length(Timings t) {
        return t.lease.multipliedBy(4);
      }

      @Override
      void begin(ElectionFixture e, ElectionFixture.Candidate leader, Timings t) {
        e.candidates.values().forEach(c -> c.lock.failAll(LockFailure.Kind.UNAVAILABLE));
        e.candidates.values().forEach(c -> c.lock.breakWatches(LockFailure.Kind.UNAVAILABLE));
      }

      @Override
      void end(ElectionFixture e, ElectionFixture.Candidate leader) {
        // The watches stay broken: a reconnecting watch backs off (up to 30 s) and may relist long
        // after the server is back, so the candidates' own tries must find its return.
        e.candidates.values().forEach(c -> c.lock.heal());
      }

      @Override
      boolean serverAway() {
        return true;
      }
    },
    /**
     * The leader's link is slowed so that a round trip takes longer than its call timeout: its
     * writes land, but their answers come too late to count.
     */
    SLOWED_LEADER {
      @Override
      Duration length(Timings t) {
        return t == Timings.DEFAULT ? Duration.ofSeconds(25) : Duration.ofSeconds(8);
      }

      @Override
      void begin(ElectionFixture e, ElectionFixture.Candidate leader, Timings t) {
        // the default callTimeout is renewDeadline / 2: a round trip takes a fifth longer
        leader.lock.slowLink(t.renewDeadline.dividedBy(2).multipliedBy(3).dividedBy(5));
      }

      @Override
      void end(ElectionFixture e, ElectionFixture.Candidate leader) {
        leader.lock.heal();
      }
    },
    /** The leader's process is gone: no call of it answers or lands again. */
    CRASH {
      @Override
      Duration length(Timings t) {
        return t.lease.multipliedBy(3);
      }

      @Override
      void begin(ElectionFixture e, ElectionFixture.Candidate leader, Timings t) {
        leader.lock.hang();
      }

      @Override
      void end(ElectionFixture e, ElectionFixture.Candidate leader) {}
    },
    /** An outside writer names a holder of its own with a short lease, once. */
    FOREIGN_REWRITE {
      @Override
      Duration length(Timings t) {
        return Duration.ZERO;
      }

      @Override
      void begin(ElectionFixture e, ElectionFixture.Candidate leader, Timings t) {
        LeaderRecord now = e.store.current().orElseThrow();
        Duration lease = Objects.requireNonNull(now.leaseDuration()).dividedBy(2);
        e.store.overwrite(
            new LeaderRecord(
                "intruder", lease, now.acquireTime(), now.renewTime(), now.leaderTransitions()));
      }

      @Override
      void end(ElectionFixture e, ElectionFixture.Candidate leader) {}
    };

    abstract Duration length(Timings t);

    abstract void begin(ElectionFixture e, ElectionFixture.Candidate leader, Timings t);

    abstract void end(ElectionFixture e, ElectionFixture.Candidate leader);

    boolean serverAway() {
      return false;
    }
  }

  /** A change of the lock as the store made it, at a virtual instant. */
  private record Change(long atNanos, LockRead read) {}

  @ParameterizedTest
  @EnumSource(Fault.class)
  void theNextTermStartsWithinOneRetryPeriodOfTheEarliestSafeInstant(Fault fault) {
    for (Timings timings : Timings.values()) {
      List<Long> excess = new ArrayList<>();
      List<Long> leaderless = new ArrayList<>();
      for (int seed = 1; seed <= SEEDS; seed++) {
        long[] figures = run(fault, timings, seed);
        excess.add(figures[0]);
        leaderless.add(figures[1]);
      }
      long worst = excess.stream().mapToLong(Long::longValue).max().orElseThrow();
      System.out.printf(
          "recovery-bound %s %s: excess median %d ms, worst %d ms (allowed %d ms);"
              + " leaderless median %d ms, worst %d ms%n",
          fault,
          timings,
          median(excess),
          worst,
          timings.allowedExcess().toMillis(),
          median(leaderless),
          leaderless.stream().mapToLong(Long::longValue).max().orElseThrow());
      assertTrue(
          worst <= timings.allowedExcess().toMillis(),
          fault + " at " + timings + " timings: excess " + excess + " ms");
    }
  }

  /**
   * A candidate on a slow link creates the lock: the create lands, its answer comes after the call
   * timeout. A second candidate starts meanwhile. The slow one releases what it wrote rather than
   * take it over (each takeover would land too, restarting the other's wait for a lease), so the
   * other leads within a retry period of the release.
   */
  @ParameterizedTest
  @EnumSource(Timings.class)
  void aCandidateWhoseAcquisitionsLandTooLateToCountHoldsNobodyBack(Timings timings) {
    ElectionFixture e = new ElectionFixture(1, timings::apply);
    List<Change> changes = new ArrayList<>();
    e.store
        .lockFor("observer")
        .watch(read -> changes.add(new Change(e.time.clock().nanos(), read)));
    ElectionFixture.Candidate slow = e.add("slow");
    slow.lock.slowLink(timings.renewDeadline.dividedBy(2).multipliedBy(3).dividedBy(5));
    slow.start(UnaryOperator.identity());
    e.advance(timings.renewDeadline); // the create has landed, its answer timed out
    e.start("fast");
    e.advanceUntil(() -> !e.timeline.terms().isEmpty(), timings.lease.multipliedBy(4));
    assertTrue(!e.timeline.terms().isEmpty(), "nobody led: " + changes);
    LeadershipTimeline.Interval first = e.timeline.terms().get(0);
    long excess = first.startNanos() - earliestSafeInstant(changes, first);
    long landedForSlow =
        changes.stream()
            .filter(c -> c.read() instanceof LockRead.Found f && f.record().isHeldBy("slow"))
            .count();
    System.out.printf(
        "recovery-bound SLOW_ACQUISITION %s: first term %s after %d ms, excess %d ms;"
            + " writes naming the slow candidate that landed: %d%n",
        timings,
        first.candidate(),
        first.startNanos() / 1_000_000,
        excess / 1_000_000,
        landedForSlow);
    assertTrue(landedForSlow >= 1, "the slow candidate's create landed: " + changes);
    assertTrue(excess >= 0, "a term began before the earliest safe instant: " + excess + " ns");
    assertTrue(excess <= timings.allowedExcess().toNanos(), "excess " + excess / 1e6 + " ms");
    assertTrue(landedForSlow <= 2, "the slow candidate kept rewriting the lock: " + changes);
    e.timeline.assertNoOverlap();
    e.closeAll();
  }

  /** One run; returns the excess and the leaderless time, in milliseconds. */
  private long[] run(Fault fault, Timings timings, int seed) {
    ElectionFixture e = new ElectionFixture(seed, timings::apply);
    List<Change> changes = new ArrayList<>();
    e.store
        .lockFor("observer")
        .watch(read -> changes.add(new Change(e.time.clock().nanos(), read)));
    for (String name : List.of("a", "b", "c")) {
      e.start(name);
    }
    e.advance(timings.lease.multipliedBy(2));
    ElectionFixture.Candidate leader = e.onlyLeader();
    int termsBefore = e.timeline.terms().size();
    long faultAt = e.time.clock().nanos();
    fault.begin(e, leader, timings);
    e.advance(fault.length(timings));
    long serverBackAt = e.time.clock().nanos();
    fault.end(e, leader);
    e.advanceUntil(
        () -> e.timeline.terms().size() > termsBefore && !e.leaders().isEmpty(),
        Duration.ofMinutes(5));
    LeadershipTimeline.Interval next = e.timeline.terms().get(termsBefore);
    long safeFrom = earliestSafeInstant(changes, next);
    if (fault.serverAway()) {
      safeFrom = Math.max(safeFrom, serverBackAt);
    }
    long excess = next.startNanos() - safeFrom;
    long leaderlessFrom =
        e.timeline.terms().subList(0, termsBefore).stream()
            .mapToLong(LeadershipTimeline.Interval::endNanos)
            .filter(end -> end != Long.MAX_VALUE)
            .max()
            .orElse(faultAt);
    long leaderlessMillis = Math.max(0, next.startNanos() - Math.max(faultAt, leaderlessFrom));
    e.timeline.assertNoOverlap();
    assertTrue(excess >= 0, "a term began before the earliest safe instant: " + excess + " ns");
    e.closeAll();
    return new long[] {excess / 1_000_000, leaderlessMillis / 1_000_000};
  }

  /**
   * The earliest instant at which a candidate may lead without overlapping anyone, from the lock's
   * history before the write that started {@code next}: the end of every lease a landed write
   * claimed (an outside writer's short lease does not end the lease of the holder it overwrote),
   * except that a release ends the claims before it.
   */
  private static long earliestSafeInstant(List<Change> changes, LeadershipTimeline.Interval next) {
    long safe = Long.MIN_VALUE;
    for (Change change : changes) {
      if (!(change.read() instanceof LockRead.Found found)) {
        throw new AssertionError("no fault here deletes the lock: " + change);
      }
      LeaderRecord record = found.record();
      if (record.isHeldBy(next.candidate()) && record.leaderTransitions() == next.token()) {
        return safe;
      }
      safe =
          record.isReleased()
              ? change.atNanos()
              : Math.max(
                  safe,
                  change.atNanos() + Objects.requireNonNull(record.leaseDuration()).toNanos());
    }
    throw new AssertionError("the winning write is not in the lock's history: " + next);
  }

  private static long median(List<Long> values) {
    long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted[sorted.length / 2];
  }

  private static Duration seconds(double s) {
    return Duration.ofNanos((long) (s * 1e9));
  }
}
