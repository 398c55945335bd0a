package dev.elector.time;

import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * Runs the elector's short, non-blocking steps after a delay.
 *
 * <p>Electors never sleep: every wait is a task scheduled here, so a virtual scheduler from {@code
 * elector-testkit} can run an hour of elections in milliseconds. Many electors may share one
 * scheduler; each elector runs at most one of its own steps at a time.
 *
 * <p>Implementations must be thread-safe and must run tasks in order of their due time. A {@link
 * java.util.concurrent.ScheduledExecutorService} is one: {@code (task, delayNanos) ->
 * executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS)}.
 */
public interface Scheduler extends Executor {

  /**
   * Runs {@code task} once, {@code delayNanos} after now (immediately if zero or negative).
   *
   * @return the task's future; the elector only ever calls {@code cancel(false)} on it, to stop a
   *     task that has not started (one that runs finishes)
   */
  Future<?> schedule(Runnable task, long delayNanos);

  /** Runs {@code task} as soon as possible. */
  @Override
  default void execute(Runnable task) {
    var unused = schedule(task, 0);
  }
}
