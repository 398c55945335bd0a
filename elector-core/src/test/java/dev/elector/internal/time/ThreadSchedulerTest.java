package dev.elector.internal.time;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.time.Cancellable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadSchedulerTest {
  @Test
  void closeWaitsForItsOwnThreadsButNotForThreadsATaskStarted() throws Exception {
    ThreadScheduler scheduler = ThreadScheduler.create(1, "scheduler-test");
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Thread> started = new CompletableFuture<>();
    scheduler.schedule(
        () -> {
          // as an HTTP client does when its first request is made from a scheduler thread
          Thread pool = new Thread(() -> awaitQuietly(release), "client-connection-pool");
          pool.setDaemon(true);
          pool.start();
          started.complete(pool);
        },
        0);
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
    Cancellable handle = scheduler.schedule(() -> {}, 0);
    assertFalse(handle.cancel(), "nothing was scheduled");
    assertTrue(scheduler.awaitTermination(10_000));
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
