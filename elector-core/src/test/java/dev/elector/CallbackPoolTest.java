package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The default callback pool: one thread while callbacks return quickly, one more per stall. Stall
 * checks are tasks of a hand-cranked scheduler, so "100 ms later" is whenever the test says.
 */
class CallbackPoolTest {
  private final HandCrankedScheduler scheduler = new HandCrankedScheduler();
  private final AtomicInteger threadsStarted = new AtomicInteger();
  private final ThreadFactory factory =
      runnable -> {
        threadsStarted.incrementAndGet();
        Thread thread = new Thread(runnable, "callback-pool-test");
        thread.setDaemon(true);
        return thread;
      };
  private final CallbackPool pool = new CallbackPool(scheduler, factory);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    pool.shutdown();
    assertTrue(pool.awaitTermination(10_000), "every pool thread ends after shutdown");
  }

  @Test
  void aBurstOfQuickCallbacksRunsOnOneThread() throws Exception {
    int count = 1000;
    CountDownLatch done = new CountDownLatch(count);
    Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < count; i++) {
      pool.execute(
          () -> {
            ranOn.add(Thread.currentThread());
            done.countDown();
          });
    }
    assertTrue(done.await(10, TimeUnit.SECONDS), "all callbacks ran");
    scheduler.runPending(); // the stall checks, "100 ms" after the submits: nothing is stuck
    assertEquals(1, threadsStarted.get(), "threads started for a burst of 1000 quick callbacks");
    assertEquals(1, ranOn.size());
  }

  @Test
  void aCallbackWaitingBehindABlockedOneGetsAThreadAtTheNextStallCheck() throws Exception {
    CountDownLatch blocking = new CountDownLatch(1);
    pool.execute(
        () -> {
          blocking.countDown();
          awaitQuietly(release);
        });
    assertTrue(blocking.await(10, TimeUnit.SECONDS));
    CountDownLatch second = new CountDownLatch(1);
    pool.execute(second::countDown);

    assertEquals(1, threadsStarted.get(), "no thread is added before a stall check");
    assertEquals(1, second.getCount(), "the second callback waits behind the blocked one");
    assertEquals(1, scheduler.pendingCount(), "one stall check is pending");

    scheduler.runPending();
    assertTrue(second.await(10, TimeUnit.SECONDS), "the second callback runs on a new thread");
    assertEquals(2, threadsStarted.get());
    assertEquals(1, release.getCount(), "while the first callback is still blocked");
  }

  @Test
  void aStallCheckAddsNoThreadWhenCallbacksWereTakenSinceItWasScheduled() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch letFirstEnd = new CountDownLatch(1);
    pool.execute(
        () -> {
          firstRunning.countDown();
          awaitQuietly(letFirstEnd);
        });
    assertTrue(firstRunning.await(10, TimeUnit.SECONDS));
    CountDownLatch secondRunning = new CountDownLatch(1);
    pool.execute(
        () -> {
          secondRunning.countDown();
          awaitQuietly(release);
        });
    CountDownLatch third = new CountDownLatch(1);
    pool.execute(third::countDown);
    letFirstEnd.countDown(); // the one thread moves on to the second callback
    assertTrue(secondRunning.await(10, TimeUnit.SECONDS));

    scheduler.runPending(); // a callback was taken since the check was scheduled: no stall yet
    assertEquals(1, threadsStarted.get(), "progress since the check means no new thread");
    assertEquals(1, third.getCount(), "the third callback still waits behind the second");

    scheduler.runPending(); // the check scheduled again: now nothing was taken
    assertTrue(third.await(10, TimeUnit.SECONDS));
    assertEquals(2, threadsStarted.get());
  }

  @Test
  void aThrowingCallbackDoesNotStopTheOnesAfterIt() throws InterruptedException {
    AtomicInteger reported = new AtomicInteger();
    CallbackPool reporting =
        new CallbackPool(
            scheduler,
            runnable -> {
              Thread thread = factory.newThread(runnable);
              thread.setUncaughtExceptionHandler((t, e) -> reported.incrementAndGet());
              return thread;
            });
    CountDownLatch after = new CountDownLatch(1);
    reporting.execute(
        () -> {
          throw new IllegalStateException("callback failed");
        });
    reporting.execute(after::countDown);
    assertTrue(after.await(10, TimeUnit.SECONDS), "the next callback ran");
    assertEquals(1, threadsStarted.get(), "on the same thread");
    assertEquals(1, reported.get(), "the failure went to the thread's uncaught-exception handler");
    reporting.shutdown();
    assertTrue(reporting.awaitTermination(10_000));
  }

  @Test
  void shutdownRunsWhatIsQueuedThenRefusesAndLeavesNoThread() throws InterruptedException {
    CountDownLatch queuedRan = new CountDownLatch(1);
    pool.execute(() -> awaitQuietly(release));
    pool.execute(queuedRan::countDown);
    pool.shutdown();
    assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
    assertFalse(pool.awaitTermination(50), "a blocked callback keeps its thread");
    release.countDown();
    assertTrue(queuedRan.await(10, TimeUnit.SECONDS), "callbacks queued before shutdown still run");
    assertTrue(pool.awaitTermination(10_000));
    assertEquals(0, pool.workerCount());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs scheduled tasks only when the test says so, whatever their delay. */
  private static final class HandCrankedScheduler implements Scheduler {
    private final List<FutureTask<?>> pending = new ArrayList<>();

    @Override
    public synchronized Future<?> schedule(Runnable task, long delayNanos) {
      FutureTask<?> scheduled = new FutureTask<>(task, null);
      pending.add(scheduled);
      return scheduled;
    }

    synchronized int pendingCount() {
      return (int) pending.stream().filter(task -> !task.isCancelled()).count();
    }

    /** Runs what is pending; a task that throws fails the test. */
    void runPending() throws Exception {
      List<FutureTask<?>> due;
      synchronized (this) {
        due = new ArrayList<>(pending);
        pending.clear();
      }
      for (FutureTask<?> task : due) {
        task.run();
        if (!task.isCancelled()) {
          task.get();
        }
      }
    }
  }
}
