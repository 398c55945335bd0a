package dev.elector.testkit;

import dev.elector.time.Cancellable;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * The scheduler of a {@link VirtualTime}. Nothing runs until the test drives it with {@link
 * #advance}, {@link #runDueTasks} or {@link #advanceUntil}; tasks then run on the calling thread,
 * one at a time, in order of due time (ties in order of scheduling), with the {@link FakeClock} set
 * to each task's due time. Thread-safe: other threads may schedule tasks.
 */
final class VirtualScheduler implements Scheduler {
  private final FakeClock clock;
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long sequence;
  private long tasksRun;

  /** A scheduler with no tasks that sets {@code clock} to each task's due time. */
  VirtualScheduler(FakeClock clock) {
    this.clock = clock;
  }

  private static final class Task implements Comparable<Task>, Cancellable {
    final long due;
    final long order;
    final Runnable body;
    volatile boolean cancelled;

    Task(long due, long order, Runnable body) {
      this.due = due;
      this.order = order;
      this.body = body;
    }

    @Override
    public int compareTo(Task other) {
      int byDue = Long.compare(due, other.due);
      return byDue != 0 ? byDue : Long.compare(order, other.order);
    }

    @Override
    public boolean cancel() {
      boolean wasActive = !cancelled;
      cancelled = true;
      return wasActive;
    }
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    long now = clock.nanos();
    long due = delayNanos <= 0 ? now : now + delayNanos < now ? Long.MAX_VALUE : now + delayNanos;
    Task scheduled;
    synchronized (this) {
      scheduled = new Task(due, sequence++, task);
      queue.add(scheduled);
    }
    return scheduled;
  }

  /** Runs every task due up to now + {@code duration}, then leaves the clock there. */
  void advance(Duration duration) {
    long target = clock.nanos() + duration.toNanos();
    while (runNextDueBy(target)) {
      // keep going
    }
    clock.advanceTo(target);
  }

  /** Runs every task due now, including tasks they schedule for now. */
  void runDueTasks() {
    advance(Duration.ZERO);
  }

  /**
   * Runs tasks one at a time until {@code condition} holds, but not past {@code limit} from now;
   * then runs the rest of the tasks due at that same instant (such as callbacks queued by the step
   * that made the condition true), without moving the clock further.
   *
   * @return the virtual time it took
   * @throws AssertionError if the condition did not hold within the limit
   */
  Duration advanceUntil(BooleanSupplier condition, Duration limit) {
    long start = clock.nanos();
    long target = start + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (!runNextDueBy(target)) {
        clock.advanceTo(target);
        if (condition.getAsBoolean()) {
          break;
        }
        throw new AssertionError("condition not met within " + limit + " of virtual time");
      }
    }
    Duration took = Duration.ofNanos(clock.nanos() - start);
    runDueTasks();
    return took;
  }

  /** Number of tasks waiting (cancelled ones excluded). */
  synchronized int pendingTasks() {
    return (int) queue.stream().filter(task -> !task.cancelled).count();
  }

  /**
   * Fails, naming each task still scheduled and when it is due, if anything is left to run: after
   * every elector is closed, a task left behind is a leak (a timer not cancelled, a step that
   * outlives its elector).
   */
  synchronized void assertNoMoreTasks() {
    List<String> left =
        queue.stream()
            .filter(task -> !task.cancelled)
            .sorted()
            .map(
                task ->
                    task.body
                        + " due in "
                        + Duration.ofNanos(Math.max(0, task.due - clock.nanos())))
            .toList();
    if (!left.isEmpty()) {
      throw new AssertionError(left.size() + " task(s) still scheduled: " + left);
    }
  }

  /** Number of tasks run so far. */
  synchronized long tasksRun() {
    return tasksRun;
  }

  private boolean runNextDueBy(long target) {
    Task next;
    synchronized (this) {
      while (true) {
        next = queue.peek();
        if (next == null || next.due > target) {
          return false;
        }
        queue.poll();
        if (!next.cancelled) {
          break;
        }
      }
      tasksRun++;
    }
    clock.advanceTo(next.due);
    next.body.run();
    return true;
  }
}
