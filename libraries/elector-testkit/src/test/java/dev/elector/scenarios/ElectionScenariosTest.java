package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The elector's behaviour, scenario by scenario, in virtual time with default timings. */
class ElectionScenariosTest {
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
  private static final Duration RETRY = Duration.ofSeconds(2);
  private static final Duration MAX_JITTERED_RETRY = Duration.ofMillis(2400);

  private final ElectionFixture election = new ElectionFixture(7, b -> b.watchWhenFollowing(false));

  @AfterEach
  void noTwoLeadersEverAndNothingLeftScheduled() {
    election.timeline.assertNoOverlap();
    election.closeAll();
  }

  @Test
  void threeCandidatesElectExactlyOneLeader() {
    election.start("a");
    election.start("b");
    election.start("c");

    election.advance(Duration.ofMinutes(10));

    ElectionFixture.Candidate leader = election.onlyLeader();
    assertEquals(1, leader.started, "one term in ten quiet minutes");
    assertEquals(1, election.timeline.terms().size());
    for (ElectionFixture.Candidate c : election.candidates.values()) {
      assertEquals(
          leader.name, c.elector.observedLeader().orElseThrow(), c.name + " knows who leads");
    }
  }

  @Test
  void leaderCrashWithoutReleaseHandsOverOnlyAfterTheLeaseExpires() {
    election.start("a");
    election.advance(Duration.ofSeconds(1));
    election.start("b");
    election.start("c");
    election.advance(Duration.ofSeconds(30));
    ElectionFixture.Candidate crashed = election.onlyLeader();

    // A crash: the process vanishes, so its calls never reach the lock again and nothing is
    // released.
    crashed.lock.hang();
    long lastRenewal = crashed.lock.calls().get(crashed.lock.calls().size() - 1).atNanos();
    Duration untilNewLeader =
        election.advanceUntil(
            () -> election.leaders().stream().anyMatch(c -> c != crashed), Duration.ofMinutes(1));
    long handoverAt = election.time.clock().nanos();

    Duration sinceLastRenewal = Duration.ofNanos(handoverAt - lastRenewal);
    assertTrue(
        sinceLastRenewal.compareTo(LEASE) >= 0,
        "nobody takes over before the lease expired: " + sinceLastRenewal);
    assertTrue(
        sinceLastRenewal.compareTo(LEASE.plus(MAX_JITTERED_RETRY)) <= 0,
        "takeover within one poll of expiry: " + sinceLastRenewal);
    assertTrue(untilNewLeader.compareTo(LEASE.plus(RETRY).plus(MAX_JITTERED_RETRY)) <= 0);
  }

  @Test
  void releaseOnCloseHandsOverWithinOneRetryPeriod() {
    election.start("a");
    election.advance(Duration.ofSeconds(1));
    election.start("b");
    election.start("c");
    election.advance(Duration.ofSeconds(20));
    ElectionFixture.Candidate first = election.onlyLeader();

    CompletableFuture<Void> closing = first.elector.closeAsync();
    Duration handover =
        election.advanceUntil(
            () -> election.leaders().stream().anyMatch(c -> c != first), Duration.ofMinutes(1));
    assertTrue(closing.isDone(), "the leader closed (released) before the next one took over");

    assertTrue(handover.compareTo(MAX_JITTERED_RETRY) <= 0, "handover took " + handover);
    assertEquals(1, first.stopped, "stopped-leading delivered on close");
    assertTrue(election.store.current().orElseThrow().holderIdentity().length() > 0);
  }

  @Test
  void releaseIsTakenOverAtOnceByWatchingFollowers() {
    ElectionFixture watching = new ElectionFixture(8);
    watching.start("a");
    watching.advance(Duration.ofSeconds(1));
    watching.start("b");
    watching.advance(Duration.ofSeconds(20));
    ElectionFixture.Candidate first = watching.onlyLeader();

    CompletableFuture<Void> closing = first.elector.closeAsync();
    Duration handover =
        watching.advanceUntil(() -> watching.candidate("b").leading(), Duration.ofMinutes(1));
    assertTrue(closing.isDone(), "the leader closed (released) before the next one took over");

    assertEquals(Duration.ZERO, handover, "the watch delivers the release; no poll is awaited");
    watching.timeline.assertNoOverlap();
  }

  @Test
  void hijackedLeaderStepsDownAndLeadsAgainAfterTheHijackerExpiresRepeatedly() {
    ElectionFixture.Candidate lone = election.start("lone");
    election.advance(Duration.ofSeconds(5));
    assertTrue(lone.leading());

    for (int round = 1; round <= 5; round++) {
      var now = lone.wall.instant();
      election.store.overwrite(
          new LeaderRecord("hijacker-" + round, LEASE, now, now, round * 100L));
      // the next renewal, at most jitter × retryPeriod away, meets the hijacker's record
      Duration seen = MAX_JITTERED_RETRY.plusMillis(1);
      election.advance(seen);
      assertFalse(
          lone.leading(), "round " + round + ": the leader saw the hijack and stepped down");

      Duration back = election.advanceUntil(lone::leading, Duration.ofMinutes(1));
      assertTrue(
          back.compareTo(LEASE.minus(seen)) >= 0,
          "round " + round + ": the hijacker's lease is respected, back after " + back);
      assertTrue(
          back.compareTo(LEASE.plus(MAX_JITTERED_RETRY)) <= 0,
          "round " + round + ": leads again soon after expiry, took " + back);
    }
    assertEquals(6, lone.started, "one start per term, without any restart");
    assertEquals(5, lone.stopped);
    assertEquals(TermEnd.LOCK_LOST, lone.terms.get(0).endReason().orElseThrow());
    assertTrue(lone.terms.get(5).fencingToken() > 500, "token continues past the hijacker's");
  }

  @Test
  void leaderWhoseCallsFailStepsDownBeforeRenewDeadlinePlusOneRetryPeriod() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(10));
    assertTrue(a.leading());

    a.lock.failAll(LockFailure.Kind.UNAVAILABLE);
    long failingFrom = election.time.clock().nanos();
    Duration stepDown = election.advanceUntil(() -> !a.leading(), Duration.ofMinutes(1));

    assertTrue(
        stepDown.compareTo(RENEW_DEADLINE.plus(RETRY)) <= 0, "stepped down after " + stepDown);
    assertEquals(TermEnd.RENEW_DEADLINE_EXCEEDED, a.terms.get(0).endReason().orElseThrow());
    long sinceLastGood = election.time.clock().nanos() - failingFrom;
    assertTrue(
        Duration.ofNanos(sinceLastGood).compareTo(LEASE) < 0,
        "steps down before its lease could expire for anyone else");
  }

  @Test
  void leaderWhoseCallsHangStepsDownAtTheRenewDeadline() {
    election.start("a");
    election.start("b");
    election.advance(Duration.ofSeconds(10));
    ElectionFixture.Candidate leader = election.onlyLeader();

    leader.lock.hang();
    Duration stepDown = election.advanceUntil(() -> !leader.leading(), Duration.ofMinutes(1));
    assertTrue(
        stepDown.compareTo(RENEW_DEADLINE.plus(RETRY)) <= 0, "stepped down after " + stepDown);

    election.advanceUntil(() -> election.leaders().size() == 1, Duration.ofMinutes(1));
    assertNotEquals(leader.name, election.onlyLeader().name);
  }

  @Test
  void aPausedLeaderIsInactiveTheInstantItsDeadlinePassesEvenBeforeItsElectorRuns() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(7));
    Term term = a.terms.get(0);
    MonotonicClock clock = election.time.clock();

    // The process is paused (a long GC, SIGSTOP): time passes, none of its threads run.
    election.time.stall(Duration.ofNanos(term.activeUntilNanos() - clock.nanos() - 1));
    assertTrue(term.isActive(), "one nanosecond before the deadline");
    election.time.stall(Duration.ofNanos(1));
    assertFalse(term.isActive(), "at the deadline, although the elector has not run");
    assertTrue(a.elector.isLeader(), "the elector itself has not noticed yet");
    assertEquals(Optional.empty(), term.endReason());
    election.time.stall(Duration.ofSeconds(20));

    election.time.runDueTasks(); // the process resumes

    assertEquals(Optional.of(TermEnd.RENEW_DEADLINE_EXCEEDED), term.endReason());
    assertEquals(
        term.activeUntilNanos(),
        election.timeline.terms().get(0).endNanos(),
        "on the timeline the term ends at its deadline, not when the paused elector woke up");
    election.advance(Duration.ofSeconds(30));
    assertTrue(
        a.terms.get(a.terms.size() - 1).fencingToken() > term.fencingToken(),
        "a later term of the same candidate has a newer token");
  }

  @Test
  void aRenewalMovesTheTermsDeadlineOn() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofMillis(1));
    Term term = a.terms.get(0);
    long first = term.activeUntilNanos();

    election.advance(Duration.ofSeconds(30));

    assertTrue(term.isActive());
    assertTrue(
        term.activeUntilNanos() - first >= Duration.ofSeconds(28).toNanos(),
        "renewed during 30 s, so the deadline moved by about as much");
    assertTrue(term.activeUntilNanos() - election.time.clock().nanos() <= RENEW_DEADLINE.toNanos());
  }

  @Test
  void aWallClockJumpOfOneHourChangesNothing() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(30));
    assertTrue(a.leading());

    a.jumpWallClock(Duration.ofHours(1));
    b.jumpWallClock(Duration.ofHours(-1));
    election.advance(Duration.ofMinutes(30));

    assertTrue(a.leading(), "the leader keeps leading");
    assertEquals(1, a.started);
    assertEquals(0, b.started, "the follower never judged the lease expired");
  }

  @Test
  void restartedCandidateWithTheSameIdentityDoesNotLeadBeforeItsOwnWriteSucceeds() {
    var then = election.time.newWallClock().instant(); // written by an earlier incarnation
    election.store.overwrite(new LeaderRecord("a", LEASE, then, then, 3));
    ElectionFixture.Candidate restarted = election.add("a");
    restarted.lock.failAll(LockFailure.Kind.UNAVAILABLE);
    restarted.start(UnaryOperator.identity());

    election.advance(Duration.ofMinutes(2));
    assertEquals(0, restarted.started, "the record names us, but our write has not succeeded");
    assertFalse(restarted.leading());

    restarted.lock.heal();
    election.advanceUntil(restarted::leading, Duration.ofMinutes(1));
    assertEquals(1, restarted.started);
    assertEquals(4, restarted.terms.get(0).fencingToken(), "a new term: a new token");
  }

  @Test
  void theCallRateStaysWithinTheBoundWhileTheLeaseKeepsBeingLost() {
    ElectionFixture.Candidate a = election.start("a");
    for (int i = 0; i < 600; i++) {
      var now = a.wall.instant();
      election.store.overwrite(
          new LeaderRecord(i % 2 == 0 ? "" : "x", Duration.ofSeconds(1), now, now, i));
      election.advance(Duration.ofMillis(500));
    }
    assertTrue(a.lock.maxCallsInAnyWindow(RETRY) <= 4 + 2, "burst bound");
    assertTrue(a.lock.maxCallsInAnyWindow(Duration.ofMinutes(1)) <= 4 + 60, "rate bound");
    election.closeAll();
  }

  @Test
  void closeIsIdempotentAndDeliversStoppedLeadingBeforeItCompletes() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(5));
    LeaderElector elector = a.elector;

    var first = elector.closeAsync();
    var second = elector.closeAsync();
    election.advanceUntil(first::isDone, Duration.ofSeconds(30));

    assertTrue(second.isDone());
    assertEquals(1, a.stopped);
    assertEquals(TermEnd.CLOSED, a.terms.get(0).endReason().orElseThrow());
    assertTrue(election.store.current().orElseThrow().isReleased(), "released on close");
    assertFalse(elector.stats().healthy(), "a closed elector is not healthy");
  }

  @Test
  void aShortForeignLeaseCannotCutShortAPartitionedLeader() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(10));
    assertTrue(a.leading());

    a.lock.hang(); // partitioned: a cannot see what happens next and leads until its deadline
    var now = b.wall.instant();
    election.store.overwrite(new LeaderRecord("outsider", Duration.ofSeconds(1), now, now, 50));
    election.advance(Duration.ofMinutes(1));

    assertEquals(TermEnd.RENEW_DEADLINE_EXCEEDED, a.terms.get(0).endReason().orElseThrow());
    assertTrue(b.leading(), "b leads once the outsider's record counts as expired");
    // the overlap detector (@AfterEach) fails if b started while a still led
  }
}
