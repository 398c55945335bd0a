package dev.elector;

import dev.elector.internal.time.ThreadScheduler;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The default threads, shared by every elector that does not bring its own: a two-thread scheduler
 * and a pool for callbacks that grows only when callbacks wait behind busy ones ({@link
 * CallbackPool}). They exist only while at least one such elector is open; the last close stops
 * them, so nothing is left behind.
 */
final class SharedThreads {
  private static final int SCHEDULER_THREADS = 2;
  private static @Nullable SharedThreads current;

  final ThreadScheduler scheduler;
  final CallbackPool callbacks;
  private int users;

  private SharedThreads() {
    scheduler = ThreadScheduler.create(SCHEDULER_THREADS, "elector-scheduler");
    AtomicInteger counter = new AtomicInteger();
    callbacks =
        new CallbackPool(
            scheduler,
            runnable -> {
              Thread thread = new Thread(runnable, "elector-callback-" + counter.incrementAndGet());
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
      callbacks.awaitTermination(timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Executor callbackExecutor() {
    return callbacks;
  }
}
