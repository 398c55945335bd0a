package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * One deadline per request: the elector tells the lock its callTimeout, the lock's requestTimeout
 * follows it when unset and is rejected when set longer, and a request gets only what is left of
 * its deadline after waiting for a thread.
 */
class RequestDeadlineTest {
  private final VirtualTime time = VirtualTime.create();
  private final MonotonicClock clock = time.clock();
  private final Queue<Runnable> queue = new ArrayDeque<>();
  private final List<Duration> timeouts = new ArrayList<>();

  /** Answers every GET with 404 at once and notes the timeout it was given. */
  private final class Recording implements ApiTransport {
    @Override
    public Reply send(
        String method,
        String path,
        Map<String, String> query,
        @Nullable Object body,
        @Nullable String contentType,
        Duration timeout,
        Abort abort) {
      timeouts.add(timeout);
      return new Reply(404, null, null, Duration.ZERO);
    }

    @Override
    public Duration timeout() {
      return KubeLock.DEFAULT_REQUEST_TIMEOUT;
    }

    @Override
    public WatchStream stream(String path, Map<String, String> query, Duration total) {
      throw new AssertionError("no watch here");
    }

    @Override
    public @Nullable Object parseJson(String text) {
      throw new AssertionError("no JSON here");
    }

    @Override
    public String writeJson(@Nullable Object value) {
      throw new AssertionError("no JSON to write here");
    }
  }

  private ObjectLock lock(@Nullable Duration requestTimeout) {
    return new ObjectLock(
        new ObjectLock.Settings(
            ObjectKind.LEASE,
            new Object(),
            new Recording(),
            "ns",
            "lock",
            "me",
            requestTimeout,
            queue::add,
            WatchMode.PER_LOCK,
            null,
            new LockTime(clock, null, null)));
  }

  private static ElectorConfig config(ObjectLock lock, Duration renewDeadline) {
    return ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(LeaderCallbacks.of(term -> {}, (term, why) -> {}))
        .leaseDuration(renewDeadline.multipliedBy(2))
        .renewDeadline(renewDeadline)
        .retryPeriod(renewDeadline.dividedBy(4))
        .build();
  }

  @Test
  void eachCallIsBoundedByTheTimeoutItCarries() {
    ObjectLock lock = lock(null);
    CompletableFuture<LockRead> read = lock.read(Duration.ofMillis(1500)).toCompletableFuture();
    queue.remove().run();

    assertEquals(List.of(Duration.ofMillis(1500)), timeouts);
    assertInstanceOf(LockRead.Absent.class, read.join());
  }

  @Test
  void aShorterRequestTimeoutSetOnTheBuilderBoundsTheCallInstead() {
    ObjectLock lock = lock(Duration.ofSeconds(1));
    lock.read(Duration.ofMillis(1500));
    queue.remove().run();

    assertEquals(List.of(Duration.ofSeconds(1)), timeouts);
  }

  @Test
  void aLongerRequestTimeoutDoesNotLengthenTheCall() {
    ObjectLock lock = lock(Duration.ofSeconds(5));
    lock.read(Duration.ofMillis(1500));
    queue.remove().run();

    assertEquals(List.of(Duration.ofMillis(1500)), timeouts, "the elector waits no longer");
  }

  @Test
  void anElectorLeavesTheLocksOwnBoundAsItWas() {
    ObjectLock unset = lock(null);
    ObjectLock set = lock(Duration.ofSeconds(2));

    LeaderElector.create(config(unset, Duration.ofSeconds(3))).close();
    LeaderElector.create(config(set, Duration.ofSeconds(1))).close();

    assertEquals(KubeLock.DEFAULT_REQUEST_TIMEOUT, unset.requestTimeout());
    assertEquals(Duration.ofSeconds(2), set.requestTimeout());
  }

  @Test
  void aCallWithoutAPositiveTimeoutIsRefused() {
    ObjectLock lock = lock(null);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> lock.read(Duration.ZERO));
    assertEquals("timeout PT0S must be positive", e.getMessage());
  }

  @Test
  void aRequestGetsWhatIsLeftOfItsDeadlineAfterWaitingForAThread() {
    ObjectLock lock = lock(null);
    CompletableFuture<LockRead> read = lock.read(Duration.ofMillis(1500)).toCompletableFuture();

    time.advance(Duration.ofMillis(400)); // the pool is busy meanwhile
    queue.remove().run();

    assertEquals(List.of(Duration.ofMillis(1100)), timeouts);
    assertInstanceOf(LockRead.Absent.class, read.join());
  }

  @Test
  void aRequestThatWaitedPastItsDeadlineIsNotSent() {
    ObjectLock lock = lock(null);
    CompletableFuture<LockRead> read = lock.read(Duration.ofMillis(1500)).toCompletableFuture();

    time.advance(Duration.ofMillis(1500));
    queue.remove().run();

    assertEquals(List.of(), timeouts, "nothing is sent");
    LockFailure failure = assertInstanceOf(LockFailure.class, read.join());
    assertEquals(LockFailure.Kind.TIMEOUT, failure.kind());
    assertTrue(failure.message().contains("waited 1500 ms"), failure.message());
  }
}
