package dev.elector.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Scheduler} on real threads. Threads are daemons named {@code prefix-N}; {@link #close()}
 * stops them and waits briefly for them to end.
 */
public final class ThreadScheduler implements Scheduler, AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;

  ThreadScheduler(int threads, String prefix) {
    AtomicInteger counter = new AtomicInteger();
    ThreadFactory factory =
        runnable -> {
          Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    executor = new ScheduledThreadPoolExecutor(threads, factory);
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    if (executor.isShutdown()) {
      return () -> false;
    }
    ScheduledFuture<?> future =
        executor.schedule(guard(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  /** Returns the number of tasks waiting to run. */
  public int queuedTasks() {
    return executor.getQueue().size();
  }

  /** Stops the threads; tasks not yet started never run. Idempotent. */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Runnable guard(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
      }
    };
  }
}
