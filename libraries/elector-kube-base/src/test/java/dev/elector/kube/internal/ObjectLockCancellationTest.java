package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.elector.kube.WatchMode;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a lock call's stage, as the elector does when it stops waiting for the call, stops the
 * request: one still waiting for a thread of the executor is never sent, and one in flight is
 * aborted, which frees its thread at once instead of after requestTimeout.
 */
class ObjectLockCancellationTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private static final LeaderRecord RECORD =
      new LeaderRecord("me", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 1);

  /** The executor's queue, run by the test. */
  private final Queue<Runnable> queue = new ArrayDeque<>();

  private final Executor queued = queue::add;

  /** One thread, as a request pool would lend it. */
  private final ThreadPoolExecutor oneThread = DaemonThreads.bounded(1, "object-lock-test-");

  private final FakeTransport transport = new FakeTransport();

  @AfterEach
  void stopThePool() {
    oneThread.shutdownNow();
  }

  /**
   * Records what is sent and aborted. Every request waits for an answer that never comes: it ends
   * only when aborted, or fails after a minute, as if at its requestTimeout.
   */
  private static final class FakeTransport implements ApiTransport {
    final List<String> log = new ArrayList<>();
    final CountDownLatch sent = new CountDownLatch(1);

    @Override
    public Reply send(
        String method,
        String path,
        Map<String, String> query,
        @Nullable Object body,
        @Nullable String contentType,
        Duration timeout,
        Abort abort)
        throws Exception {
      CountDownLatch aborted = new CountDownLatch(1);
      abort.onAbort(aborted::countDown);
      note(method + " " + path);
      sent.countDown();
      if (aborted.await(1, TimeUnit.MINUTES)) {
        note("aborted");
        throw new IOException("Canceled");
      }
      throw new InterruptedIOException("timeout");
    }

    synchronized void note(String line) {
      log.add(line);
    }

    synchronized List<String> log() {
      return List.copyOf(log);
    }

    @Override
    public WatchStream stream(String path, Map<String, String> query, Duration total) {
      throw new AssertionError("no watch here");
    }

    @Override
    public Duration timeout() {
      return Duration.ofMinutes(1);
    }

    @Override
    public @Nullable Object parseJson(String text) {
      throw new AssertionError("no JSON to parse here");
    }

    @Override
    public String writeJson(@Nullable Object value) {
      throw new AssertionError("no JSON to write here");
    }
  }

  private ObjectLock lock(Executor executor) {
    return new ObjectLock(
        new ObjectLock.Settings(
            ObjectKind.LEASE,
            new Object(),
            transport,
            "ns",
            "lock",
            "me",
            Duration.ofMinutes(1),
            executor,
            WatchMode.PER_LOCK,
            null,
            LockTime.SYSTEM));
  }

  @Test
  void aCancelledRequestStillWaitingForAThreadIsNeverSent() {
    ObjectLock lock = lock(queued);
    CompletableFuture<LockRead> read = lock.read(TIMEOUT).toCompletableFuture();
    CompletableFuture<LockWrite> update = lock.update("7", RECORD, TIMEOUT).toCompletableFuture();
    assertEquals(2, queue.size());

    read.cancel(false);
    update.cancel(false);
    queue.forEach(Runnable::run); // the pool's threads reach them

    assertEquals(List.of(), transport.log(), "nothing is sent for a call nobody waits for");
  }

  @Test
  void aCancelledRequestInFlightIsAbortedAndFreesItsThread() throws InterruptedException {
    ObjectLock lock = lock(oneThread);
    CompletableFuture<LockWrite> update = lock.update("7", RECORD, TIMEOUT).toCompletableFuture();
    assertTrue(transport.sent.await(10, TimeUnit.SECONDS), "the update is sent");

    update.cancel(false);
    CountDownLatch threadFree = new CountDownLatch(1);
    oneThread.execute(threadFree::countDown);

    if (!threadFree.await(10, TimeUnit.SECONDS)) {
      fail("the request still holds the pool's only thread: " + transport.log());
    }
    assertEquals(
        List.of("PATCH /apis/coordination.k8s.io/v1/namespaces/ns/leases/lock", "aborted"),
        transport.log());
  }
}
