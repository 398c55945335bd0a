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
  private final ThreadGroup group;

  ThreadScheduler(int threads, String prefix) {
    AtomicInteger counter = new AtomicInteger();
    group = new ThreadGroup(prefix);
    ThreadFactory factory =
        runnable -> {
          Thread thread = new Thread(group, runnable, prefix + "-" + counter.incrementAndGet());
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

  /**
   * Stops the threads; tasks not yet started never run. Waits up to 5 s for them to end, unless
   * called from one of them. Idempotent.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    if (Thread.currentThread().getThreadGroup() != group) {
      awaitTermination(5_000);
    }
  }

  /** Waits up to {@code millis} for the threads to end after {@link #close()}. */
  public boolean awaitTermination(long millis) {
    try {
      return executor.awaitTermination(millis, TimeUnit.MILLISECONDS) && joinAll(group, millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Joins every thread of {@code group}; true if all ended in time. */
  private static boolean joinAll(ThreadGroup group, long millis) throws InterruptedException {
    Thread[] threads = new Thread[group.activeCount() + 4];
    int count = group.enumerate(threads, false);
    long deadline = SystemTime.CLOCK.nanos() + TimeUnit.MILLISECONDS.toNanos(millis);
    for (int i = 0; i < count; i++) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - SystemTime.CLOCK.nanos());
      if (threads[i] != Thread.currentThread()) {
        threads[i].join(Math.max(1, left));
      }
    }
    return group.activeCount() == 0;
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
