package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A lock deleted under a live leader is free for nobody until that leader has stepped down, which
 * it does only when its next renewal fails. A candidate that never read the deleted record can
 * still learn of it from its own calls: its create is refused, or its create lands after the
 * deletion while the watch had shown the other leader. Either way it waits a lease before it leads.
 * The old leader's calls are slowed so that it steps down well after the deletion.
 */
class DeletedLockTest {
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final Duration SLOW_CALLS = Duration.ofMillis(500);

  @Test
  void aCreateThatLandsAfterAnotherLeadersLockWasDeletedHoldsTheLockALeaseBeforeLeading() {
    ElectionFixture election = new ElectionFixture(3);
    ElectionFixture.Candidate a = election.add("a");
    ScriptedLock aLock = new ScriptedLock(a.lock, election.transcript);
    CompletableFuture<Void> aCreate = aLock.holdNextCreate();
    a.start(config -> config.lock(aLock));
    election.advanceUntil(aLock::createHeld, Duration.ofSeconds(5));

    ElectionFixture.Candidate b = election.start("b");
    election.advanceUntil(
        () -> b.leading() && a.elector.observedLeader().equals(Optional.of("b")),
        Duration.ofSeconds(10));
    b.lock.latency(SLOW_CALLS);
    election.store.delete();
    long landed = election.time.clock().nanos();
    aCreate.complete(null); // reaches the lock now, after the deletion: it is written

    election.advanceUntil(a::leading, Duration.ofMinutes(1));

    long waited = election.time.clock().nanos() - landed;
    assertTrue(
        waited >= LEASE.toNanos(),
        "a led " + Duration.ofNanos(waited) + " after its create landed\n" + transcript(election));
    assertEquals(1, b.stopped, "b stepped down when its renewal found the lock gone");
    assertEquals(1, a.terms.get(0).fencingToken(), "a's term has a token above b's");
    election.timeline.assertNoOverlap();
    election.closeAll();
  }

  @Test
  void aRefusedCreateCountsAsAHolderSoADeletionReadAfterItWaitsALease() {
    ElectionFixture election = new ElectionFixture(5);
    ElectionFixture.Candidate a = election.add("a");
    a.lock.breakWatches(LockFailure.Kind.UNAVAILABLE); // a learns only from its own calls
    ScriptedLock aLock = new ScriptedLock(a.lock, election.transcript);
    CompletableFuture<Void> aCreate = aLock.holdNextCreate();
    a.start(config -> config.lock(aLock));
    election.advanceUntil(aLock::createHeld, Duration.ofSeconds(5));

    ElectionFixture.Candidate b = election.start("b");
    election.advanceUntil(b::leading, Duration.ofSeconds(10));
    b.lock.latency(SLOW_CALLS);
    aLock.beforeNextRead(election.store::delete); // a's read after the refusal finds it gone
    aCreate.complete(null); // refused: b's lock exists
    long refused = election.time.clock().nanos();

    election.advanceUntil(a::leading, Duration.ofMinutes(1));

    long waited = election.time.clock().nanos() - refused;
    assertTrue(
        waited >= LEASE.toNanos(),
        "a led "
            + Duration.ofNanos(waited)
            + " after its create was refused\n"
            + transcript(election));
    assertEquals(1, b.stopped, "b stepped down when its renewal found the lock gone");
    // a never read b's record, so its token cannot be above b's: the deletion took the history.
    election.timeline.assertNoTwoLeaders();
    election.closeAll();
  }

  private static String transcript(ElectionFixture election) {
    return String.join("\n", election.transcript);
  }
}
