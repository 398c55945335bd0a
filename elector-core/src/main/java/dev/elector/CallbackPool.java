package dev.elector;

import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The default callback threads: one thread while callbacks return quickly, one more whenever the
 * oldest waiting callback has waited {@link #STALL_NANOS} behind busy ones.
 *
 * <p>A burst of a thousand quick {@code onStartedLeading} calls runs on one thread, where a pool
 * that adds a thread whenever none is idle at the moment of a submit would start several. A
 * callback that blocks (a controller's main loop run inside {@code onStartedLeading}, say) holds
 * the others back by at most one stall period before a new thread takes them. The stall check runs
 * on the elector's scheduler, so its period is virtual time in tests. Threads that stay idle for
 * {@link #IDLE_MILLIS} end.
 */
final class CallbackPool implements Executor {
  /** How long the oldest waiting callback may wait behind busy threads before one is added. */
  static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** How long an idle thread waits for work before it ends. */
  static final long IDLE_MILLIS = 30_000;

  private final Scheduler scheduler;
  private final MonotonicClock clock = MonotonicClock.system();
  private final ThreadFactory threadFactory;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final List<Thread> started = new ArrayList<>();
  private int workers;
  private long taken;
  private int idle;
  private @Nullable Future<?> stallCheck; // scheduled and not yet run
  private boolean shutDown;

  CallbackPool(Scheduler scheduler, ThreadFactory threadFactory) {
    this.scheduler = scheduler;
    this.threadFactory = threadFactory;
  }

  @Override
  public synchronized void execute(Runnable task) {
    if (shutDown) {
      throw new RejectedExecutionException("the callback pool is shut down");
    }
    queue.add(task);
    if (workers == 0) {
      startThread();
      return;
    }
    if (idle > 0) {
      notify();
    }
    if (queue.size() > idle) {
      checkForStallLater();
    }
  }

  /** Lets queued callbacks finish, accepts no more, and lets the threads end. */
  synchronized void shutdown() {
    shutDown = true;
    if (stallCheck != null) {
      stallCheck.cancel(false);
      stallCheck = null;
    }
    notifyAll();
  }

  /** Waits up to {@code timeoutMillis} for every thread to end after {@link #shutdown()}. */
  boolean awaitTermination(long timeoutMillis) throws InterruptedException {
    long deadline = clock.nanos() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (true) {
      Thread next;
      synchronized (this) {
        started.removeIf(thread -> !thread.isAlive());
        if (started.isEmpty()) {
          return true;
        }
        next = started.get(0);
      }
      long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - clock.nanos());
      if (leftMillis <= 0) {
        return false;
      }
      next.join(leftMillis);
    }
  }

  /** The number of threads working or waiting for work. */
  synchronized int workerCount() {
    return workers;
  }

  private void checkForStallLater() {
    if (stallCheck != null || shutDown) {
      return;
    }
    long takenWhenScheduled = taken;
    stallCheck = scheduler.schedule(() -> checkForStall(takenWhenScheduled), STALL_NANOS);
  }

  private synchronized void checkForStall(long takenWhenScheduled) {
    stallCheck = null;
    if (shutDown || queue.isEmpty()) {
      return;
    }
    if (taken == takenWhenScheduled && idle == 0) {
      startThread();
    }
    if (queue.size() > idle) {
      checkForStallLater();
    }
  }

  private void startThread() {
    started.removeIf(thread -> !thread.isAlive());
    Thread thread = threadFactory.newThread(this::work);
    started.add(thread);
    workers++;
    thread.start();
  }

  private void work() {
    Runnable task;
    while ((task = next()) != null) {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        Thread current = Thread.currentThread();
        current.getUncaughtExceptionHandler().uncaughtException(current, e);
      }
    }
  }

  /** The next task, or null when this thread should end (idle too long, or shut down). */
  private synchronized @Nullable Runnable next() {
    long idleUntil = clock.nanos() + TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
    while (queue.isEmpty()) {
      long leftMillis = TimeUnit.NANOSECONDS.toMillis(idleUntil - clock.nanos());
      if (shutDown || leftMillis <= 0) {
        workers--;
        return null;
      }
      idle++;
      try {
        wait(leftMillis);
      } catch (InterruptedException e) {
        // A callback left its thread interrupted: end this thread, not the pool.
        workers--;
        return null;
      } finally {
        idle--;
      }
    }
    taken++;
    return queue.poll();
  }
}
