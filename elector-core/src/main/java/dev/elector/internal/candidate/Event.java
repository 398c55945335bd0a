package dev.elector.internal.candidate;

import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import org.jspecify.annotations.Nullable;

/** Something that happened to a candidate: asked by its user, or reported by its driver. */
public sealed interface Event {

  /** The readiness gate completed, with {@code error} if it failed. */
  record GateCompleted(@Nullable String error) implements Event {}

  /** The step the machine scheduled is due. */
  record StepDue() implements Event {}

  /** The renew deadline timer is due. */
  record DeadlineDue() implements Event {}

  /** closeTimeout has passed since close began. */
  record CloseTimedOut() implements Event {}

  /**
   * The read {@code seq} answered; a call that timed out answers with {@link
   * dev.elector.lock.LockFailure}.
   */
  record ReadAnswered(long seq, LockRead result) implements Event {}

  /** The write {@code seq} answered. */
  record WriteAnswered(long seq, LockWrite result) implements Event {}

  /** The lock's watch delivered {@code event}, or broke ({@link dev.elector.lock.LockFailure}). */
  record Watched(LockRead event) implements Event {}

  /** onStoppedLeading of the term with fencing token {@code token} returned (or threw). */
  record StopCallbackReturned(long token) implements Event {}

  /** Step down, holding back from the lock until {@code until} (monotonic). */
  record StepDownAsked(long until) implements Event {}

  /** Hold back from the lock until {@code until} (monotonic); a term goes on. */
  record HoldOffAsked(long until) implements Event {}

  /** Close was asked for; it begins with {@link Close}, which the driver delivers next. */
  record CloseRequested() implements Event {}

  /** Close begins: end the term, wait for its stop callback, release, finish. */
  record Close() implements Event {}

  /** Close was asked for before start: nothing ran, so the candidate just ends. */
  record CloseBeforeStart() implements Event {}
}
