package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.ElectorStats;
import dev.elector.LockCall;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A new candidate's first look at the lock: it creates without reading, since a create succeeds
 * only where the lock is absent; anything else makes it read at once and decide on what it read,
 * unless its watch has already shown the record that refused the create.
 */
class FirstLookTest {
  private static final Duration LATENCY = Duration.ofMillis(40);

  @Test
  void aFreeLockIsTakenWithOneCreateAndNoRead() {
    ElectionFixture election = new ElectionFixture(31);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.latency(LATENCY);
    a.start(b -> b.watchWhenFollowing(false));

    Duration took = election.advanceUntil(a::leading, Duration.ofSeconds(5));

    assertEquals(LATENCY, took, "one round trip");
    ElectorStats stats = a.elector.stats();
    assertEquals(1, stats.calls(LockCall.ACQUIRE, CallOutcome.OK), stats.toString());
    assertEquals(1, stats.totalCalls(), stats.toString());
    election.closeAll();
  }

  @Test
  void aHeldLockIsReadRightAfterTheCreateConflictsAndIsNotTaken() {
    ElectionFixture election = new ElectionFixture(32);
    ElectionFixture.Candidate b = election.start("b");
    election.advanceUntil(b::leading, Duration.ofSeconds(5));
    ElectionFixture.Candidate a = election.add("a");
    a.lock.latency(LATENCY);
    a.start(x -> x.watchWhenFollowing(false));

    Duration took =
        election.advanceUntil(
            () -> a.elector.observedLeader().equals(Optional.of("b")), Duration.ofSeconds(5));

    assertEquals(LATENCY.multipliedBy(2), took, "the create's conflict, then a read at once");
    ElectorStats stats = a.elector.stats();
    assertEquals(1, stats.calls(LockCall.ACQUIRE, CallOutcome.CONFLICT), stats.toString());
    assertEquals(1, stats.calls(LockCall.READ, CallOutcome.OK), stats.toString());
    election.advance(Duration.ofSeconds(30));
    assertFalse(a.leading(), "b renews, so a follows");
    assertTrue(b.leading());
    assertEquals(
        1,
        a.elector.stats().calls(LockCall.ACQUIRE, CallOutcome.CONFLICT),
        "the create without a read is tried once");
    election.closeAll();
  }

  @Test
  void aWatchThatAlreadyShowedTheHolderSavesTheReadAfterTheConflict() {
    ElectionFixture election = new ElectionFixture(34);
    ElectionFixture.Candidate b = election.start("b");
    election.advanceUntil(b::leading, Duration.ofSeconds(5));
    ElectionFixture.Candidate a = election.add("a");
    // Slower than b's retry period: b's next renewal reaches a's watch while the create is on its
    // way, so the watch has shown the holder by the time the conflict is back.
    a.lock.latency(Duration.ofSeconds(3));
    a.start(UnaryOperator.identity());

    election.advanceUntil(
        () -> a.elector.stats().calls(LockCall.ACQUIRE, CallOutcome.CONFLICT) == 1,
        Duration.ofSeconds(5));
    election.advance(Duration.ofSeconds(30));

    ElectorStats stats = a.elector.stats();
    assertEquals(Optional.of("b"), a.elector.observedLeader());
    assertTrue(stats.watching(), "follows through the watch: " + stats);
    assertEquals(1, stats.totalCalls(), "the refused create only, no read: " + stats);
    assertFalse(a.leading(), "b renews, so a follows");
    assertTrue(b.leading());
    election.closeAll();
  }

  @Test
  void aFailedCreateIsNotAFailureOfItsOwnTheReadDecides() {
    ElectionFixture election = new ElectionFixture(33);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.failAll(LockFailure.Kind.FORBIDDEN);
    a.start(x -> x.watchWhenFollowing(false));

    election.advance(Duration.ofMillis(1));

    ElectorStats stats = a.elector.stats();
    assertEquals(1, stats.calls(LockCall.ACQUIRE, CallOutcome.REFUSED), stats.toString());
    assertEquals(1, stats.calls(LockCall.READ, CallOutcome.REFUSED), "read at once: " + stats);
    assertEquals(1, stats.consecutiveFailures(), "only the read counts: " + stats);
    election.closeAll();
  }
}
