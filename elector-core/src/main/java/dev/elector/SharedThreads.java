package dev.elector;

import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import dev.elector.time.ThreadScheduler;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The default threads, shared by every elector that does not bring its own: a two-thread scheduler
 * and a pool for callbacks. They exist only while at least one such elector is open; the last close
 * stops them, so nothing is left behind.
 */
final class SharedThreads {
  private static final int SCHEDULER_THREADS = 2;
  private static @Nullable SharedThreads current;

  final ThreadScheduler scheduler;
  final ThreadPoolExecutor callbacks;
  private final ThreadGroup callbackGroup = new ThreadGroup("elector-callback");
  private int users;

  private SharedThreads() {
    scheduler = Scheduler.newThreadScheduler(SCHEDULER_THREADS, "elector-scheduler");
    AtomicInteger counter = new AtomicInteger();
    callbacks =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            runnable -> {
              Thread thread =
                  new Thread(
                      callbackGroup, runnable, "elector-callback-" + counter.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  static synchronized SharedThreads acquire() {
    if (current == null) {
      current = new SharedThreads();
    }
    current.users++;
    return current;
  }

  /** Releases one use; the last one stops the threads without waiting for them. */
  void release() {
    synchronized (SharedThreads.class) {
      if (--users > 0) {
        return;
      }
      if (current == this) {
        current = null;
      }
    }
    scheduler.close();
    callbacks.shutdown();
  }

  /** Waits for the threads to end if this instance was stopped. Never called on its own threads. */
  void awaitStopped(long timeoutMillis) {
    synchronized (SharedThreads.class) {
      if (users > 0) {
        return;
      }
    }
    scheduler.awaitTermination(timeoutMillis);
    try {
      if (callbacks.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
        joinCallbackThreads(timeoutMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The pool has terminated, but its threads may still be ending: wait for them too. */
  private void joinCallbackThreads(long timeoutMillis) throws InterruptedException {
    Thread[] threads = new Thread[callbackGroup.activeCount() + 4];
    int count = callbackGroup.enumerate(threads, false);
    MonotonicClock clock = MonotonicClock.system();
    long deadline = clock.nanos() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (int i = 0; i < count; i++) {
      threads[i].join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - clock.nanos())));
    }
  }

  Executor callbackExecutor() {
    return callbacks;
  }
}
