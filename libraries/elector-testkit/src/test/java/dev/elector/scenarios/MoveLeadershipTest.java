package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.TermEnd;
import dev.elector.lock.LeaderRecord;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Moving leadership to a named replica: an operator writes the identity into the lock (for
 * Kubernetes locks the annotation {@value LeaderRecord#PREFERRED_HOLDER}); the leader steps down,
 * the named candidate takes over, the others hold back, and a request nobody answers lapses after
 * two leases. In virtual time with default timings (lease 15 s, renew deadline 10 s, retry 2 s).
 */
class MoveLeadershipTest {
  private static final Duration LEASE = Duration.ofSeconds(15);

  private ElectionFixture election = new ElectionFixture(31);

  @AfterEach
  void noTwoLeadersEverAndNothingLeftScheduled() {
    election.timeline.assertNoOverlap();
    election.closeAll();
  }

  /** What an operator's annotation does to the lock: the same record, asking for {@code who}. */
  private void request(String who) {
    election.store.overwrite(election.store.current().orElseThrow().withPreferredHolder(who));
  }

  private ElectionFixture.Candidate[] threeWithALeader() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    ElectionFixture.Candidate c = election.start("c");
    election.advance(Duration.ofSeconds(5));
    assertTrue(a.leading());
    return new ElectionFixture.Candidate[] {a, b, c};
  }

  @Test
  void theLeaderHandsOverToTheNamedFollowerAtOnceAndTheOthersHoldBack() {
    ElectionFixture.Candidate[] abc = threeWithALeader();
    ElectionFixture.Candidate a = abc[0];
    ElectionFixture.Candidate b = abc[1];
    ElectionFixture.Candidate c = abc[2];

    request("c"); // b hears of the release first, and must leave it to c
    Duration took = election.advanceUntil(c::leading, Duration.ofSeconds(1));
    election.advance(Duration.ofMinutes(2));

    assertTrue(took.compareTo(Duration.ofMillis(100)) < 0, "through the watches: " + took);
    assertEquals(TermEnd.STEPPED_DOWN, a.terms.get(0).endReason().orElseThrow());
    assertTrue(c.terms.get(0).fencingToken() > a.terms.get(0).fencingToken());
    assertEquals(0, b.started, "b held back while the request stood");
    assertTrue(c.leading(), "c keeps leading");
    assertEquals(1, a.started, "a does not take it back");
    assertNull(
        election.store.current().orElseThrow().preferredHolder(),
        "the new leader's record carries no request any more");
  }

  @Test
  void aRequestForAnIdentityThatNeverComesLapsesAfterTwoLeases() {
    ElectionFixture.Candidate[] abc = threeWithALeader();
    long asked = election.time.clock().nanos();

    request("ghost");
    election.advance(LEASE.multipliedBy(2).minusSeconds(1));
    assertEquals(0, election.leaders().size(), "everybody holds back for the ghost");
    Duration more =
        election.advanceUntil(() -> election.leaders().size() == 1, Duration.ofSeconds(10));

    Duration leaderless = Duration.ofNanos(election.time.clock().nanos() - asked);
    assertTrue(
        leaderless.compareTo(LEASE.multipliedBy(2).plusSeconds(5)) <= 0,
        "a stale request never leaves the lock leaderless for long: " + leaderless + " " + more);
    assertNull(election.store.current().orElseThrow().preferredHolder());
    assertEquals(TermEnd.STEPPED_DOWN, abc[0].terms.get(0).endReason().orElseThrow());
  }

  @Test
  void aRequestNamingTheLeaderKeepsItLeading() {
    ElectionFixture.Candidate[] abc = threeWithALeader();

    request("a");
    election.advance(Duration.ofMinutes(1));

    assertTrue(abc[0].leading());
    assertEquals(0, abc[1].started + abc[2].started, "nobody else led");
  }

  @Test
  void aPollingLeaderThatLearnsOfTheRequestByAConflictReleasesForTheNamedFollower() {
    election = new ElectionFixture(37, b -> b.watchWhenFollowing(false));
    ElectionFixture.Candidate[] abc = threeWithALeader();
    ElectionFixture.Candidate b = abc[1];

    request("b"); // no watch: the leader's next renewal conflicts, and its read shows the request
    Duration took = election.advanceUntil(b::leading, LEASE);

    assertTrue(
        took.compareTo(Duration.ofSeconds(6)) < 0,
        "a renewal, a read, the release and b's next poll, not a lease: " + took);
    // The read after the conflict shows the leader's own record asking for b: a step-down on
    // request, not a lost lock.
    assertEquals(TermEnd.STEPPED_DOWN, abc[0].terms.get(0).endReason().orElseThrow());
    assertEquals(0, abc[2].started);
    election.advance(Duration.ofMinutes(1));
    assertEquals(1, abc[0].started, "a released it for b and did not take it back");
  }
}
