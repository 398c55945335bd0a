package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorListener;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A read answered after a watch event may show an older state than the event did. The follower must
 * not go back to that older state: a release it saw on the watch would be forgotten, and the stale
 * record would restart its expiry, so the handover would wait a whole lease.
 */
class StaleReadTest {
  private static final Duration READ_LATENCY = Duration.ofMillis(1500);

  @Test
  void aReadAnsweredAfterAWatchEventDoesNotUndoTheRelease() {
    ElectionFixture election = new ElectionFixture(7);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(10));

    // b's answers come late; its watch delivers at once.
    ElectionFixture.Candidate b = election.add("b");
    b.lock.latency(READ_LATENCY);
    List<String> seenByB = new CopyOnWriteArrayList<>();
    b.start(
        config ->
            config.listener(
                new ElectorListener() {
                  @Override
                  public void onLeaderObserved(String identity) {
                    seenByB.add(identity.isEmpty() ? "none" : identity);
                  }
                }));
    election.advanceUntil(() -> seenByB.contains("a"), Duration.ofSeconds(10));
    // A broken watch makes b poll with reads. Mended while one of them is on its way, it delivers
    // the release at once, before that read's answer, which still shows "a".
    b.lock.breakWatches(LockFailure.Kind.UNAVAILABLE);
    election.advanceUntil(() -> readInFlight(b.lock, election), Duration.ofSeconds(30));
    b.lock.mendWatches();
    long releasedAt = election.time.clock().nanos();
    CompletableFuture<Void> closing = a.elector.closeAsync();
    Duration handover = election.advanceUntil(b::leading, Duration.ofMinutes(1));

    assertTrue(closing.isDone(), "a released");
    assertEquals(
        List.of("a", "none", "b"), seenByB, "b never goes back to the record its late read showed");
    assertTrue(
        election.time.clock().nanos() - releasedAt < Duration.ofSeconds(5).toNanos(),
        "b took over after the release, not after a lease: " + handover);
    election.timeline.assertNoOverlap();
    election.closeAll();
  }

  /**
   * Whether b's last call is a read issued less than half its latency ago (so still unanswered).
   */
  private static boolean readInFlight(FaultyLock lock, ElectionFixture election) {
    List<FaultyLock.Call> calls = lock.calls();
    if (calls.isEmpty()) {
      return false;
    }
    FaultyLock.Call last = calls.get(calls.size() - 1);
    long age = election.time.clock().nanos() - last.atNanos();
    return last.kind().equals("read") && age > 0 && age < READ_LATENCY.toNanos() / 2;
  }
}
