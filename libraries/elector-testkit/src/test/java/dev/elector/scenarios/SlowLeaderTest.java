package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A leader whose API calls are answered later than renewDeadline (the API slowed for it alone, its
 * writes still landing) must not keep the lock from a healthy follower: it steps down, and its own
 * record, which its late writes keep fresh, is no reason to take the lock again at once.
 */
class SlowLeaderTest {
  @Test
  void aHealthyFollowerLeadsWhileTheOldLeadersCallsStaySlow() {
    ElectionFixture election = new ElectionFixture(11);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(10));
    ElectionFixture.Candidate b = election.start("b");
    election.advance(Duration.ofSeconds(5));

    a.lock.latency(Duration.ofSeconds(12)); // beyond renewDeadline (10 s), below leaseDuration
    Duration took = election.advanceUntil(b::leading, Duration.ofMinutes(3));

    election.log("b leads " + took + " after a's calls slowed");
    // a steps down at renewDeadline; b waits out the lease from a's last write it saw.
    assertTrue(
        took.compareTo(Duration.ofSeconds(30)) < 0,
        "b led only "
            + took
            + " after a's calls slowed\n"
            + String.join("\n", election.transcript));
    election.advance(Duration.ofMinutes(2));
    assertTrue(
        b.leading(),
        "b keeps leading while a stays slow\n" + String.join("\n", election.transcript));
    election.timeline.assertNoOverlap();
    election.closeAll();
  }
}
