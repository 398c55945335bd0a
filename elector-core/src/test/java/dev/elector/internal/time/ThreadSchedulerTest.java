package dev.elector.internal.time;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ThreadSchedulerTest {
  @Test
  void closeWaitsForItsOwnThreadsButNotForThreadsATaskStarted() throws Exception {
    ThreadScheduler scheduler = ThreadScheduler.create(1, "scheduler-test");
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Thread> started = new CompletableFuture<>();
    scheduler.execute(
        () -> {
          // as an HTTP client does when its first request is made from a scheduler thread
          Thread pool = new Thread(() -> awaitQuietly(release), "client-connection-pool");
          pool.setDaemon(true);
          pool.start();
          started.complete(pool);
        });
    Thread foreign = started.get(10, TimeUnit.SECONDS);
    try {
      scheduler.close();
      assertTrue(
          scheduler.awaitTermination(10_000),
          "the scheduler's own threads ended; the task's thread is not the scheduler's to wait for");
      assertTrue(foreign.isAlive(), "the thread the task started is left alone");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aTaskNeverRunsAfterClose() {
    ThreadScheduler scheduler = ThreadScheduler.create(1, "scheduler-test");
    scheduler.close();
    AtomicBoolean ran = new AtomicBoolean();
    Future<?> handle = scheduler.schedule(() -> ran.set(true), 0);
    assertTrue(handle.isCancelled(), "cancelled at once");
    assertFalse(handle.cancel(false), "nothing left to cancel");
    assertTrue(scheduler.awaitTermination(10_000));
    assertFalse(ran.get());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
