package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.ElectorStats;
import dev.elector.LockCall;
import dev.elector.TermEnd;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The figures of {@code stats()} that metrics read: latency by purpose, ends by reason, following.
 */
class StatsTest {

  @Test
  void latencyIsSummedPerKindOfCallOnTheElectorsClock() {
    ElectionFixture election = new ElectionFixture(21);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.latency(Duration.ofMillis(40));
    a.start(b -> b.watchWhenFollowing(false).jitter(1.0)); // renewals exactly every retryPeriod
    election.advanceUntil(a::leading, Duration.ofSeconds(5));
    ElectorStats stats = a.elector.stats();
    // a candidate that has seen nothing creates the free lock without reading it first
    assertEquals(0, stats.calls(LockCall.READ));
    assertEquals(Duration.ZERO, stats.latency(LockCall.READ));
    assertEquals(1, stats.calls(LockCall.ACQUIRE));
    assertEquals(Duration.ofMillis(40), stats.latency(LockCall.ACQUIRE));
    assertEquals(0, stats.calls(LockCall.RENEW));

    election.advance(Duration.ofSeconds(10)); // renews every retryPeriod (2 s): jitter 1.0
    ElectorStats later = a.elector.stats();
    long renewals = later.calls(LockCall.RENEW);
    assertEquals(5, renewals, later.toString());
    assertEquals(Duration.ofMillis(renewals * 40), later.latency(LockCall.RENEW));
    assertEquals(1, later.calls(LockCall.ACQUIRE), "renewals are not acquisitions");

    election.time.close(a.elector);
    assertEquals(1, a.elector.stats().calls(LockCall.RELEASE));
    assertEquals(Duration.ofMillis(40), a.elector.stats().latency(LockCall.RELEASE));
  }

  @Test
  void termsEndedAreCountedByReason() {
    ElectionFixture election = new ElectionFixture(22);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(5));

    // someone else takes the lock: the next renewal conflicts, and the read after it shows them
    election.store.overwrite(
        new LeaderRecord("intruder", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 50));
    election.advanceUntil(() -> !a.leading(), Duration.ofSeconds(5));
    election.advanceUntil(a::leading, Duration.ofSeconds(30));

    a.lock.failAll(LockFailure.Kind.UNAVAILABLE);
    election.advanceUntil(() -> !a.leading(), Duration.ofSeconds(15));
    a.lock.heal();
    election.advanceUntil(a::leading, Duration.ofSeconds(60));

    election.time.close(a.elector);
    ElectorStats stats = a.elector.stats();
    assertEquals(1, stats.termsEnded(TermEnd.LOCK_LOST), stats.toString());
    assertEquals(1, stats.termsEnded(TermEnd.RENEW_DEADLINE_EXCEEDED), stats.toString());
    assertEquals(1, stats.termsEnded(TermEnd.CLOSED), stats.toString());
    assertEquals(3, stats.termsEnded());
    assertEquals(3, stats.termsStarted());
  }

  @Test
  void aConflictOverItsOwnUnchangedRecordEndsNoTerm() {
    ElectionFixture election = new ElectionFixture(22);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(5));
    long token = a.elector.currentTerm().orElseThrow().fencingToken();

    a.lock.injectConflicts(1); // a renewal conflicts, but the record is still a's own
    election.advance(Duration.ofSeconds(10));

    assertTrue(a.leading());
    assertEquals(token, a.elector.currentTerm().orElseThrow().fencingToken(), "the same term");
    assertEquals(0, a.elector.stats().termsEnded());
    assertEquals(1, a.elector.stats().calls(LockCall.RENEW, CallOutcome.CONFLICT));
  }

  @Test
  void aFollowerSaysWhetherItWatchesOrPolls() {
    ElectionFixture election = new ElectionFixture(23);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(5));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(1));

    assertEquals("neither", following(a), "the leader does not follow");
    assertEquals("watching", following(b));

    b.lock.breakWatches(LockFailure.Kind.UNAVAILABLE);
    election.advance(Duration.ofMillis(1));
    assertEquals("polling", following(b));
    b.lock.mendWatches();
    election.advanceUntil(() -> following(b).equals("watching"), Duration.ofSeconds(30));

    ElectionFixture.Candidate c = election.add("c");
    c.start(builder -> builder.watchWhenFollowing(false));
    election.advance(Duration.ofSeconds(1));
    assertEquals("polling", following(c), "watching turned off");

    election.closeAll();
    assertEquals("neither", following(b), "closed");
  }

  /** How a candidate follows by its stats; watching and polling are never both true. */
  private static String following(ElectionFixture.Candidate candidate) {
    ElectorStats stats = candidate.elector.stats();
    assertFalse(stats.watching() && stats.polling(), stats.toString());
    return stats.watching() ? "watching" : stats.polling() ? "polling" : "neither";
  }

  @Test
  void consecutiveFailuresCountTheStreakAndResetOnSuccess() {
    ElectionFixture election = new ElectionFixture(24);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.failAll(LockFailure.Kind.FORBIDDEN);
    a.start(b -> b);
    election.advance(Duration.ofSeconds(30));
    int failures = a.elector.stats().consecutiveFailures();
    assertTrue(failures >= 3, "failures in a row: " + failures);
    a.lock.heal();
    election.advanceUntil(a::leading, Duration.ofMinutes(1));
    assertEquals(0, a.elector.stats().consecutiveFailures());
  }
}
