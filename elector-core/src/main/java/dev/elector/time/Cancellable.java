package dev.elector.time;

/** A handle to a scheduled task. */
@FunctionalInterface
public interface Cancellable {

  /**
   * Cancels the task if it has not started yet; a task that is running finishes. Idempotent.
   *
   * @return true if this call prevented the task from running
   */
  boolean cancel();
}
