package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a transition asks the driver to do, in order. No effect asks for another transition: what
 * comes of one (a call's answer, a timer, a callback's return) comes back as an {@link Event}.
 */
public sealed interface Effect {

  /** How loud a {@link Log} is. */
  enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR
  }

  /** Logs {@code message} about this candidate. */
  record Log(Level level, String message) implements Effect {}

  /** Delivers {@link Event.StepDue} after {@code delay}, replacing the step scheduled before. */
  record ScheduleStep(Delay delay) implements Effect {}

  /** Cancels the scheduled step, if any. */
  record CancelStep() implements Effect {}

  /** Delivers {@link Event.DeadlineDue} after {@code delayNanos}, replacing an earlier one. */
  record ArmDeadline(long delayNanos) implements Effect {}

  /** Cancels the renew deadline timer. */
  record CancelDeadline() implements Effect {}

  /** Delivers {@link Event.CloseTimedOut} after {@code delayNanos}. */
  record ArmCloseTimer(long delayNanos) implements Effect {}

  /** Why a term ends. */
  enum Ending {
    /** Someone else wrote the lock. */
    LOCK_LOST,
    /** No renewal succeeded within renewDeadline. */
    RENEW_DEADLINE_EXCEEDED,
    /** The leader stepped down on request. */
    STEPPED_DOWN,
    /** The candidate closed. */
    CLOSED
  }

  /** The kinds of lock call. */
  enum Kind {
    READ,
    CREATE,
    UPDATE
  }

  /**
   * Makes lock call {@code seq} for {@code purpose}: a read, a create of {@code record} (no
   * version), or an update of the lock at {@code version} to {@code record}; its answer comes back
   * as {@link Event.ReadAnswered} or {@link Event.WriteAnswered} with the same {@code seq}, or as a
   * failure after callTimeout.
   */
  record Call(long seq, Purpose purpose, @Nullable String version, @Nullable LeaderRecord record)
      implements Effect {

    /** The kind of call. */
    public Kind kind() {
      if (record == null) {
        return Kind.READ;
      }
      return version == null ? Kind.CREATE : Kind.UPDATE;
    }
  }

  /** The call budget is spent: a call waits {@code waitNanos} (the step is rescheduled). */
  record CallDeferred(long waitNanos) implements Effect {}

  /** Watches the lock, if configured and the lock can; nothing if already watching. */
  record Watch() implements Effect {}

  /**
   * A term began: fencing token {@code token}, begun at {@code startedAt} (wall clock), valid until
   * {@code validUntil} (monotonic).
   */
  record StartTerm(long token, Instant startedAt, long validUntil) implements Effect {}

  /** The current term stays valid until {@code validUntil} (monotonic). */
  record ExtendTerm(long validUntil) implements Effect {}

  /**
   * Ends the term {@code token} for {@code reason}; once onStoppedLeading returned, the driver
   * delivers {@link Event.StopCallbackReturned}.
   */
  record EndTerm(long token, Ending reason) implements Effect {}

  /** The lock names {@code holder} now ("" for nobody): tell the listener and onNewLeader. */
  record LeaderObserved(String holder) implements Effect {}

  /** A call of {@code call}'s kind succeeded: a failure streak ends. */
  record Succeeded(String call) implements Effect {}

  /** A call failed; reported, rate-limited, with what follows. */
  record Failed(String call, LockFailure failure, String consequence) implements Effect {}

  /** Stops every timer, abandons a call in flight, closes the watch and completes the close. */
  record Finish() implements Effect {}

  /** How long until a step; the driver draws the jitter where there is one. */
  sealed interface Delay {
    /** Exactly {@code nanos}. */
    record Exactly(long nanos) implements Delay {}

    /**
     * A retry period with jitter counted from {@code from} (monotonic), never less than zero from
     * now, and never more than {@code cap} from now.
     */
    record Retry(long from, long cap) implements Delay {}

    /**
     * The back-off after {@code failures} failures in a row, with jitter; but no later than {@code
     * takeableIn} from now or a retry period with jitter, whichever is later: a candidate backs off
     * only while it could not take the lock anyway.
     */
    record Backoff(int failures, long takeableIn) implements Delay {}
  }
}
