package dev.elector.kube.internal;

import dev.elector.internal.time.ThreadScheduler;
import dev.elector.time.Scheduler;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Where a loop's steps run, one at a time: on an injected scheduler, or on a daemon thread of the
 * loop's own that ends with the loop. Owns the pending step, so that a stop cancels a step not yet
 * started, and tells when the loop has ended.
 */
final class LoopSteps {
  private final @Nullable Scheduler injected;
  private final Runnable ended;
  private volatile boolean stopped;

  /** Where the steps run; set by {@link #start}. */
  private @Nullable Scheduler scheduler;

  /** The scheduler made for the loop, closed when it ends; null for an injected one. */
  private @Nullable ThreadScheduler own;

  /** The next step, scheduled and not yet started; guarded by this. */
  private @Nullable Future<?> next;

  /**
   * @param injected the scheduler to run on, or null for a thread of the loop's own
   * @param ended what to do once the loop has ended
   */
  LoopSteps(@Nullable Scheduler injected, Runnable ended) {
    this.injected = injected;
    this.ended = ended;
  }

  /**
   * Picks the scheduler: the injected one, or a daemon thread named {@code threadPrefix} and a
   * count.
   *
   * @return false if started before
   */
  synchronized boolean start(String threadPrefix) {
    if (scheduler != null) {
      return false;
    }
    if (injected == null) {
      String name =
          threadPrefix.endsWith("-")
              ? threadPrefix.substring(0, threadPrefix.length() - 1)
              : threadPrefix;
      ThreadScheduler made = ThreadScheduler.create(1, name);
      own = made;
      scheduler = made;
    } else {
      scheduler = injected;
    }
    return true;
  }

  /** Schedules {@code step} after {@code delayNanos}, unless stopped; then the loop has ended. */
  void schedule(Runnable step, long delayNanos) {
    Scheduler on;
    synchronized (this) {
      on = scheduler;
      if (!stopped && on != null) {
        next = on.schedule(step, delayNanos);
        return;
      }
    }
    finish();
  }

  /** A step has started: it is no longer pending. */
  synchronized void began() {
    next = null;
  }

  /** Marks the loop stopped: no step is scheduled any more. */
  void markStopped() {
    stopped = true;
  }

  /** Whether {@link #markStopped()} was called. */
  boolean stopped() {
    return stopped;
  }

  /** Cancels the pending step; if it had not started, the loop has ended. */
  void cancelPending() {
    Future<?> pending;
    synchronized (this) {
      pending = next;
      next = null;
    }
    if (pending != null && pending.cancel(false)) {
      finish();
    }
  }

  /** The loop has ended: no step runs any more. */
  void finish() {
    ThreadScheduler made;
    synchronized (this) {
      made = own;
    }
    if (made != null) {
      made.close(); // from its own thread it does not wait for itself
    }
    ended.run();
  }
}
