package dev.elector.testkit;

import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

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

  /** A scheduled task and its future: pending until it starts or is cancelled. */
  private static final class Task implements Comparable<Task>, Future<Void> {
    private static final int PENDING = 0;
    private static final int STARTED = 1;
    private static final int DONE = 2;
    private static final int CANCELLED = 3;

    final long due;
    final long order;
    final Runnable body;
    private int state = PENDING; // guarded by this
    private @Nullable Throwable failure; // guarded by this

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

    /** Runs the body unless cancelled; what it throws reaches the caller and its future. */
    void run() {
      synchronized (this) {
        if (state != PENDING) {
          return;
        }
        state = STARTED;
      }
      try {
        body.run();
        finish(null);
      } catch (RuntimeException | Error e) {
        finish(e);
        throw e;
      }
    }

    private synchronized void finish(@Nullable Throwable thrown) {
      failure = thrown;
      state = DONE;
      notifyAll();
    }

    /** Stops the task if it has not started; true if this call stopped it. */
    @Override
    public synchronized boolean cancel(boolean mayInterruptIfRunning) {
      if (state != PENDING) {
        return false;
      }
      state = CANCELLED;
      notifyAll();
      return true;
    }

    synchronized boolean pending() {
      return state == PENDING;
    }

    @Override
    public synchronized boolean isCancelled() {
      return state == CANCELLED;
    }

    @Override
    public synchronized boolean isDone() {
      return state == DONE || state == CANCELLED;
    }

    /** Waits, in real time, until the test's thread has run the task (or it is cancelled). */
    @Override
    public synchronized @Nullable Void get() throws InterruptedException, ExecutionException {
      while (!isDone()) {
        wait();
      }
      return outcome();
    }

    @Override
    public synchronized @Nullable Void get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      long end = System.nanoTime() + unit.toNanos(timeout);
      while (!isDone()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException("the task is due at virtual time " + due);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return outcome();
    }

    private @Nullable Void outcome() throws ExecutionException {
      if (state == CANCELLED) {
        throw new CancellationException();
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return null;
    }
  }

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
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
    return (int) queue.stream().filter(Task::pending).count();
  }

  /**
   * Fails, naming each task still scheduled and when it is due, if anything is left to run: after
   * every elector is closed, a task left behind is a leak (a timer not cancelled, a step that
   * outlives its elector).
   */
  synchronized void assertNoMoreTasks() {
    List<String> left =
        queue.stream()
            .filter(Task::pending)
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
        if (next.pending()) {
          break;
        }
      }
      tasksRun++;
    }
    clock.advanceTo(next.due);
    next.run();
    return true;
  }
}
