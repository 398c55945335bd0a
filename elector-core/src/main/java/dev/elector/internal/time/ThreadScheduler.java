package dev.elector.internal.time;

import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Scheduler} on real threads. Threads are daemons named {@code prefix-N}; {@link #close()}
 * stops them and waits briefly for them to end. Only the scheduler's own threads are waited for:
 * threads that a task starts (an HTTP client's connection pool, say) live on their own.
 */
public final class ThreadScheduler implements Scheduler, AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;
  private final Set<Thread> own = ConcurrentHashMap.newKeySet();

  /**
   * Creates a scheduler backed by {@code threads} named daemon threads. The caller owns it and
   * closes it when every user is closed.
   *
   * @throws IllegalArgumentException if {@code threads} is not positive
   */
  public static ThreadScheduler create(int threads, String threadNamePrefix) {
    if (threads <= 0) {
      throw new IllegalArgumentException("threads must be positive, was " + threads);
    }
    return new ThreadScheduler(
        threads, Objects.requireNonNull(threadNamePrefix, "threadNamePrefix"));
  }

  private ThreadScheduler(int threads, String prefix) {
    AtomicInteger counter = new AtomicInteger();
    ThreadFactory factory =
        runnable -> {
          Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
          thread.setDaemon(true);
          own.add(thread);
          return thread;
        };
    executor = new ScheduledThreadPoolExecutor(threads, factory);
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Schedules {@code task}; once closed, returns a future already cancelled, and never runs it. */
  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    if (executor.isShutdown()) {
      FutureTask<?> never = new FutureTask<>(task, null);
      never.cancel(false);
      return never;
    }
    return executor.schedule(guard(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  /**
   * Stops the threads; tasks not yet started never run. Waits up to 5 s for them to end, unless
   * called from one of them. Idempotent.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    if (!own.contains(Thread.currentThread())) {
      awaitTermination(5_000);
    }
  }

  /** Waits up to {@code millis} for the threads to end after {@link #close()}. */
  public boolean awaitTermination(long millis) {
    try {
      return executor.awaitTermination(millis, TimeUnit.MILLISECONDS) && joinOwn(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Joins every thread this scheduler started; true if all ended in time. */
  private boolean joinOwn(long millis) throws InterruptedException {
    long deadline = MonotonicClock.system().nanos() + TimeUnit.MILLISECONDS.toNanos(millis);
    for (Thread thread : own) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - MonotonicClock.system().nanos());
      if (thread != Thread.currentThread()) {
        thread.join(Math.max(1, left));
      }
    }
    own.removeIf(thread -> !thread.isAlive());
    return own.isEmpty();
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
