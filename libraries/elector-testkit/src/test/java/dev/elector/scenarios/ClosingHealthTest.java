package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The status while close runs says "closing", and "closed" only once close has finished. */
class ClosingHealthTest {

  @Test
  void aLeaderWhoseReleaseHangsReportsClosingUntilCloseTimeoutThenClosed() {
    ElectionFixture election = new ElectionFixture(21);
    ElectionFixture.Candidate a = election.start("a");
    election.advanceUntil(a::leading, Duration.ofSeconds(1));
    a.lock.hang(); // the release write never answers

    CompletableFuture<Void> closed = a.elector.closeAsync();
    election.advance(Duration.ofSeconds(1));

    ElectorStats closing = a.elector.stats();
    assertFalse(closed.isDone(), "the release is still outstanding");
    assertFalse(closing.healthy());
    assertTrue(closing.status().endsWith(": closing"), closing.status());

    election.advance(Duration.ofSeconds(10)); // closeTimeout (10 s by default) passes
    assertTrue(closed.isDone());
    ElectorStats done = a.elector.stats();
    assertFalse(done.healthy());
    assertTrue(done.status().endsWith(": closed"), done.status());
    assertEquals(1, a.stopped, "onStoppedLeading ran once, before the release");
  }
}
