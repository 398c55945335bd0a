package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code holdOff(d)} keeps a candidate from taking the lock for d, from before its start too, while
 * it still watches and reports the leader; zero lets it compete at once; a leader keeps its term.
 */
class HoldOffTest {

  @Test
  void aCandidateHeldOffFromItsStartNeverCreatesOrTakesTheFreeLockUntilReleased() {
    ElectionFixture election = new ElectionFixture(41);
    ElectionFixture.Candidate a = election.add("a");
    LeaderElector elector =
        LeaderElector.create(
            election
                .time
                .configure(ElectorConfig.newBuilder())
                .lock(a.lock)
                .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
                .build());
    elector.holdOff(Duration.ofDays(1));
    elector.start();
    election.advance(Duration.ofMinutes(5));
    assertFalse(elector.isLeader());
    assertTrue(election.store.current().isEmpty(), "not even created");
    assertTrue(
        a.lock.calls().stream().noneMatch(c -> c.kind().equals("create")),
        "the first look of a held-off candidate is a read, not a create");

    elector.holdOff(Duration.ZERO);
    Duration taken = election.advanceUntil(elector::isLeader, Duration.ofMinutes(1));
    assertEquals(Duration.ZERO, taken, "zero lets it compete at once");
    election.time.close(elector);
  }

  @Test
  void aHeldOffFollowerWatchesAndTakesOverOnlyOnceTheHoldEnds() {
    ElectionFixture election = new ElectionFixture(42);
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(1));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(5));
    b.elector.holdOff(Duration.ofSeconds(30));

    a.elector.stepDown(Duration.ofMinutes(10)); // a releases; b must still wait for its hold
    election.advance(Duration.ofSeconds(29));
    assertFalse(b.leading(), "held off for 30 s");
    assertEquals(Optional.empty(), b.elector.currentTerm());
    Duration after = election.advanceUntil(b::leading, Duration.ofSeconds(10));
    assertTrue(
        after.compareTo(Duration.ofSeconds(1)) <= 0, "takes over when the hold ends: " + after);

    b.elector.holdOff(Duration.ofDays(1));
    election.advance(Duration.ofMinutes(2));
    assertTrue(b.leading(), "a hold does not end a term");
    assertThrows(IllegalArgumentException.class, () -> b.elector.holdOff(Duration.ofSeconds(-1)));
    election.timeline.assertNoOverlap();
    election.closeAll();
  }
}
