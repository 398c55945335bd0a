package dev.elector;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;

/**
 * One thing a {@link Transitions transition} asks the election to do. Every kind is run by its own
 * method of {@link Effects}, so an {@code Effects} that misses a kind does not compile.
 */
sealed interface Action {

  /** Runs this action on {@code effects}. */
  void runOn(Effects effects);

  /** What runs the actions: one method per kind. */
  interface Effects {
    void log(Log action);

    void scheduleStep(ScheduleStep action);

    void scheduleRetry(ScheduleRetry action);

    void scheduleRenewal(ScheduleRenewal action);

    void cancelStep(CancelStep action);

    void armDeadline(ArmDeadline action);

    void armCloseTimer(ArmCloseTimer action);

    void newEpoch(NewEpoch action);

    void startTerm(StartTerm action);

    void extendTerm(ExtendTerm action);

    void endTerm(EndTerm action);

    void see(See action);

    void holdOff(HoldOff action);

    void markStale(MarkStale action);

    void follow(Follow action);

    void look(Look action);

    void renew(Renew action);

    void succeeded(Succeeded action);

    void failed(Failed action);

    void releaseAfterStepDown(ReleaseAfterStepDown action);

    void stopCallbackReturnedLater(StopCallbackReturnedLater action);

    void releaseOrFinish(ReleaseOrFinish action);

    void release(Release action);

    void writeRelease(WriteRelease action);

    void readForRelease(ReadForRelease action);

    void finish(Finish action);
  }

  /** How loud a {@link Log} is. */
  enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR
  }

  /** What runs once onStoppedLeading returned. */
  enum AfterStop {
    NOTHING,
    /** The release of a step-down on request. */
    STEP_DOWN,
    /** The rest of close. */
    CLOSE
  }

  static Log log(Level level, String message) {
    return new Log(level, message);
  }

  /** Logs {@code message} about this candidate. */
  record Log(Level level, String message) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.log(this);
    }
  }

  /** Takes the next step after {@code delayNanos}. */
  record ScheduleStep(long delayNanos) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.scheduleStep(this);
    }
  }

  /** Takes the next step after a retry period with jitter. */
  record ScheduleRetry() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.scheduleRetry(this);
    }
  }

  /** Renews a retry period with jitter after {@code from}, the start of the last write. */
  record ScheduleRenewal(long from) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.scheduleRenewal(this);
    }
  }

  /** Cancels the next step. */
  record CancelStep() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.cancelStep(this);
    }
  }

  /** Arms the renew deadline, due renewDeadline after {@code validFrom}. */
  record ArmDeadline(long validFrom) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.armDeadline(this);
    }
  }

  /** Arms the close timeout. */
  record ArmCloseTimer() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.armCloseTimer(this);
    }
  }

  /** A new phase began: calls in flight answer an earlier one. */
  record NewEpoch() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.newEpoch(this);
    }
  }

  /**
   * A term began with the record {@code written}: counted, seen, told to the listener and the
   * callbacks.
   */
  record StartTerm(Term term, LockRead.Found written) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.startTerm(this);
    }
  }

  /** The term stays valid until {@code validUntil}. */
  record ExtendTerm(Term term, long validUntil) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.extendTerm(this);
    }
  }

  /**
   * Ends {@code term} for {@code reason}, then runs {@code then} once onStoppedLeading returned.
   */
  record EndTerm(Term term, TermEnd reason, AfterStop then) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.endTerm(this);
    }
  }

  /** The lock is now known to be {@code found}. */
  record See(LockRead.Found found) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.see(this);
    }
  }

  /** Holds back from the lock until {@code until}. */
  record HoldOff(long until) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.holdOff(this);
    }
  }

  /** The view may be stale: the next look reads. */
  record MarkStale() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.markStale(this);
    }
  }

  /** Follows the lock and looks again at once, or after a back-off if {@code backOff}. */
  record Follow(boolean backOff) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.follow(this);
    }
  }

  /** A follower's look: take the lock, create it, or read it. */
  record Look() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.look(this);
    }
  }

  /** Renews the record {@code leading} holds. */
  record Renew(Phase.Leading leading) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.renew(this);
    }
  }

  /** A call of {@code call}'s kind succeeded. */
  record Succeeded(String call) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.succeeded(this);
    }
  }

  /** A call failed; logged with what follows, not counted as a follower's failure. */
  record Failed(String call, LockFailure failure, String consequence) implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.failed(this);
    }
  }

  /** A stepped-down candidate's release is due. */
  record ReleaseAfterStepDown() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.releaseAfterStepDown(this);
    }
  }

  /** Close found no stop callback running: go on as if it returned, one task later. */
  record StopCallbackReturnedLater() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.stopCallbackReturnedLater(this);
    }
  }

  /** Closing goes on: finish, or release. */
  record ReleaseOrFinish() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.releaseOrFinish(this);
    }
  }

  /** A release on close is due. */
  record Release() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.release(this);
    }
  }

  /**
   * Writes {@code base} released over {@code claim}'s version; a candidate that stepped down
   * ({@code stayCandidate}) follows after it, a closing one finishes.
   */
  record WriteRelease(Phase.Claim claim, LeaderRecord base, boolean stayCandidate)
      implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.writeRelease(this);
    }
  }

  /** Reads the lock after a conflicting release, to see whether it is still ours. */
  record ReadForRelease() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.readForRelease(this);
    }
  }

  /** Stops everything and completes the close. */
  record Finish() implements Action {
    @Override
    public void runOn(Effects effects) {
      effects.finish(this);
    }
  }
}
