package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.LockCall;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class GateAndHealthTest {

  @Test
  void candidacyWaitsForTheReadinessGate() {
    ElectionFixture election = new ElectionFixture(11);
    CompletableFuture<Void> cachesSynced = new CompletableFuture<>();
    ElectionFixture.Candidate a = election.add("a");
    a.start(b -> b.readinessGate(cachesSynced));

    election.advance(Duration.ofMinutes(1));
    assertFalse(a.leading());
    assertEquals(0, a.lock.calls().size(), "no lock call before the gate opens");
    assertTrue(a.elector.stats().healthy(), a.elector.stats().status());

    cachesSynced.complete(null);
    election.advanceUntil(a::leading, Duration.ofSeconds(1));
    assertEquals(1, a.started);
  }

  @Test
  void aFailedGateIsReportedUnhealthyAndNeverLeads() {
    ElectionFixture election = new ElectionFixture(12);
    ElectionFixture.Candidate a = election.add("a");
    a.start(b -> b.readinessGate(CompletableFuture.failedFuture(new IllegalStateException("x"))));
    election.advance(Duration.ofMinutes(1));
    assertFalse(a.leading());
    assertFalse(a.elector.stats().healthy());
    assertTrue(a.elector.stats().status().contains("readiness gate failed"));
  }

  @Test
  void aCandidateWhoseCallsKeepFailingNamesTheLastFailureInItsHealth() {
    ElectionFixture election = new ElectionFixture(13);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.failAll(LockFailure.Kind.FORBIDDEN);
    a.start(b -> b);

    election.advance(Duration.ofMinutes(1));

    String detail = a.elector.stats().status();
    assertTrue(a.elector.stats().healthy(), detail);
    assertTrue(detail.contains("failures in a row, the last: FORBIDDEN"), detail);
    a.lock.heal();
    election.advanceUntil(a::leading, Duration.ofMinutes(1));
    assertFalse(a.elector.stats().status().contains("failures"), a.elector.stats().status());
  }

  @Test
  void healthFailsWhenALeaderHasMissedRenewalsPastLeaseDurationPlusTolerance() {
    ElectionFixture election = new ElectionFixture(13);
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(5));
    assertTrue(a.leading());
    assertTrue(a.elector.stats().healthy());

    // The elector's threads stall: time passes but none of its tasks run.
    // The last renewal was at most 2 s before the stall began (one renewal per retryPeriod).
    election.time.stall(Duration.ofSeconds(15));
    assertTrue(a.elector.stats().healthy(), "within leaseDuration + tolerance (15 s + 2 s)");
    election.time.stall(Duration.ofSeconds(3));
    assertFalse(a.elector.stats().healthy(), a.elector.stats().status());

    election.advance(Duration.ZERO);
    assertFalse(a.leading(), "on resuming it steps down at once");
    assertTrue(a.elector.stats().healthy());
  }

  @Test
  void aMalformedRecordIsNeverTakenForOursAndIsReplacedOnlyAfterALease() {
    ElectionFixture election = new ElectionFixture(14, b -> b.watchWhenFollowing(false));
    election.store.corrupt("{\"holderIdentity\": garbled");
    ElectionFixture.Candidate a = election.start("a");

    election.advance(Duration.ofSeconds(14));
    assertFalse(a.leading(), "an unreadable record is held by an unknown holder");
    Duration more = election.advanceUntil(a::leading, Duration.ofSeconds(10));
    assertTrue(more.compareTo(Duration.ofSeconds(4)) <= 0, "taken over soon after 15 s: " + more);
    assertTrue(a.lock.calls().stream().filter(c -> c.kind().equals("update")).count() >= 1);
  }

  @Test
  void aRecordWithANonPositiveDurationIsJudgedWithOurOwnLease() {
    ElectionFixture election = new ElectionFixture(15, b -> b.watchWhenFollowing(false));
    var now = election.time.newWallClock().instant();
    election.store.overwrite(new LeaderRecord("other", Duration.ofSeconds(-5), now, now, 7));
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(14));
    assertFalse(a.leading(), "a negative duration is not read as already expired");
    election.advanceUntil(a::leading, Duration.ofSeconds(10));
    assertEquals(8, a.terms.get(0).fencingToken());
  }

  @Test
  void watchingFollowersMakeNoCallsWhileTheLeaderIsHealthy() {
    ElectionFixture election = new ElectionFixture(16);
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofMinutes(1));
    int before = b.lock.calls().size();
    election.advance(Duration.ofMinutes(10));
    assertEquals(before, b.lock.calls().size(), "the follower only watches");
    // the leader renews at least once per jitter × retryPeriod (2.4 s) over the 11 minutes
    assertTrue(a.elector.stats().calls(LockCall.RENEW, CallOutcome.OK) >= 270);
  }

  @Test
  void aFollowerWhoseWatchBreaksSaysSoInItsHealthPollsMeanwhileAndWatchesAgainOnceMended() {
    ElectionFixture election = new ElectionFixture(14);
    ElectionFixture.Candidate a = election.add("a");
    ElectionFixture.Candidate b = election.add("b");
    a.start(c -> c);
    election.advanceUntil(a::leading, Duration.ofSeconds(10));
    b.start(c -> c);
    election.advance(Duration.ofSeconds(10));
    assertTrue(
        b.elector.stats().status().endsWith("; watching the lock"), b.elector.stats().status());
    long quiet = b.lock.calls().size();
    election.advance(Duration.ofMinutes(1));
    assertEquals(quiet, b.lock.calls().size(), "a watching follower makes no calls");

    b.lock.breakWatches(LockFailure.Kind.FORBIDDEN);
    election.advance(Duration.ofMinutes(1));

    String detail = b.elector.stats().status();
    assertTrue(b.elector.stats().healthy(), "polling is not a failure: " + detail);
    assertTrue(detail.contains("; polling while the watch is interrupted: FORBIDDEN"), detail);
    assertTrue(b.lock.calls().size() - quiet >= 20, "the follower polls at the retry period");

    b.lock.mendWatches();
    election.advance(Duration.ofSeconds(10)); // the leader's next renewal arrives by the watch
    assertTrue(
        b.elector.stats().status().endsWith("; watching the lock"), b.elector.stats().status());
    assertTrue(a.leading());
  }
}
