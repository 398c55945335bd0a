package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaderElector#stepDown(Duration)}: the leader ends its term, releases the lock and stays a
 * candidate that holds back for the hold-off. In virtual time with default timings (lease 15 s,
 * renew deadline 10 s, retry 2 s), followers watching the lock.
 */
class StepDownTest {
  private static final Duration HOLD_OFF = Duration.ofSeconds(15);

  private final ElectionFixture election = new ElectionFixture(23);

  @AfterEach
  void noTwoLeadersEverAndNothingLeftScheduled() {
    election.timeline.assertNoOverlap();
    election.closeAll();
  }

  @Test
  void theLeaderStepsDownAndAWatchingFollowerTakesOverAtOnceWithAHigherToken() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(5));
    assertTrue(a.leading());
    Term first = a.terms.get(0);

    assertTrue(a.elector.stepDown(HOLD_OFF), "a term was ended");
    assertFalse(a.leading(), "the term ends the instant stepDown returns");
    assertEquals(TermEnd.STEPPED_DOWN, first.endReason().orElseThrow());
    assertTrue(a.elector.stats().healthy(), "healthy while it releases the lock");
    Duration takeover = election.advanceUntil(b::leading, Duration.ofSeconds(1));

    assertTrue(
        takeover.compareTo(Duration.ofMillis(100)) < 0,
        "the follower takes over through its watch, not after a lease: " + takeover);
    assertTrue(b.terms.get(0).fencingToken() > first.fencingToken());
    assertEquals(1, a.stopped, "the stop callback ran once");
    assertEquals(1L, a.elector.stats().termsEnded(TermEnd.STEPPED_DOWN));
    assertTrue(a.elector.stats().healthy(), "still a healthy candidate");
  }

  @Test
  void aLoneCandidateHoldsBackForTheHoldOffThenLeadsAgainWithANewToken() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    long firstToken = a.terms.get(0).fencingToken();

    assertTrue(a.elector.stepDown(Duration.ofSeconds(5)));
    election.advance(Duration.ofMillis(4900));
    assertFalse(a.leading(), "no new term within the hold-off, though the lock is free");
    assertTrue(
        election.store.current().orElseThrow().isReleased(), "the lock was released meanwhile");

    election.advanceUntil(a::leading, Duration.ofSeconds(3));
    assertEquals(2, a.started, "a new term after the hold-off, without a restart");
    assertTrue(a.terms.get(1).fencingToken() > firstToken, "the fencing token only grows");
  }

  @Test
  void aZeroHoldOffCompetesAgainAtOnce() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));

    assertTrue(a.elector.stepDown(Duration.ZERO));
    election.advanceUntil(a::leading, Duration.ofSeconds(3));

    assertEquals(2, a.started);
    assertEquals(1, a.stopped);
  }

  @Test
  void aFollowerThatIsAskedToStepDownChangesNothing() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(5));

    assertFalse(b.elector.stepDown(HOLD_OFF), "b does not lead: nothing to end");
    election.advance(Duration.ofMinutes(1));

    assertTrue(a.leading(), "the leader is untouched");
    assertEquals(1, a.started);
    assertEquals(0, b.stopped);
    assertEquals(0L, b.elector.stats().termsEnded(TermEnd.STEPPED_DOWN));
    var unused = a.elector.closeAsync();
    election.advanceUntil(b::leading, Duration.ofSeconds(1));
    assertTrue(b.leading(), "b never held back: it takes over when a closes");
  }

  @Test
  void askingTwiceEndsOneTerm() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));

    assertTrue(a.elector.stepDown(HOLD_OFF));
    assertFalse(a.elector.stepDown(HOLD_OFF), "the second call finds no term to end");
    election.advance(Duration.ofSeconds(5));

    assertEquals(1, a.stopped);
    assertEquals(1L, a.elector.stats().termsEnded(TermEnd.STEPPED_DOWN));
  }

  @Test
  void closeRightAfterAStepDownReleasesOnceAndTheStopCallbackRunsOnce() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));

    assertTrue(a.elector.stepDown(HOLD_OFF));
    CompletableFuture<Void> closed = a.elector.closeAsync();
    election.advanceUntil(closed::isDone, Duration.ofSeconds(10));

    assertTrue(closed.isDone());
    assertEquals(1, a.stopped);
    assertEquals(TermEnd.STEPPED_DOWN, a.terms.get(0).endReason().orElseThrow());
    assertTrue(election.store.current().orElseThrow().isReleased());
  }

  @Test
  void stepDownDuringCloseOrBeforeStartChangesNothing() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    CompletableFuture<Void> closed = a.elector.closeAsync();

    assertFalse(a.elector.stepDown(HOLD_OFF), "close wins");
    election.advanceUntil(closed::isDone, Duration.ofSeconds(10));
    assertEquals(TermEnd.CLOSED, a.terms.get(0).endReason().orElseThrow());

    ElectionFixture.Candidate idle = election.add("idle");
    idle.elector =
        LeaderElector.create(
            election
                .time
                .configure(ElectorConfig.newBuilder())
                .lock(idle.lock)
                .callbacks(LeaderCallbacks.of(t -> {}, (t, r) -> {}))
                .build());
    assertFalse(idle.elector.stepDown(HOLD_OFF), "not started: nothing to end");
  }

  @Test
  void aNegativeHoldOffIsRefusedWithTheFix() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> a.elector.stepDown(Duration.ofSeconds(-1)));

    assertTrue(e.getMessage().contains("holdOff is PT-1S"), e.getMessage());
    assertTrue(a.leading(), "nothing changed");
  }
}
