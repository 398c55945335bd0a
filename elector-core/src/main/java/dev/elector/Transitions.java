package dev.elector;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a candidate's phase changes, as pure functions of the phase, an event and the instant: each
 * returns the next phase and the {@link Action}s to run, in order, and touches no clock, scheduler,
 * lock or log. The {@link Election} runs the actions; an action that needs the state it leaves
 * behind (a release after the phase became releasing, say) asks for the next transition itself.
 */
final class Transitions {
  private final String identity;
  private final long renewDeadline;
  private final long retry;
  private final Duration renewDeadlineSetting;
  private final Duration closeTimeout;
  private final boolean releaseOnClose;

  /**
   * Transitions for the candidate {@code identity}: {@code renewDeadline} and {@code retry} in
   * monotonic nanoseconds; the settings as configured, for the log.
   */
  Transitions(
      String identity,
      long renewDeadline,
      long retry,
      Duration renewDeadlineSetting,
      Duration closeTimeout,
      boolean releaseOnClose) {
    this.identity = identity;
    this.renewDeadline = renewDeadline;
    this.retry = retry;
    this.renewDeadlineSetting = renewDeadlineSetting;
    this.closeTimeout = closeTimeout;
    this.releaseOnClose = releaseOnClose;
  }

  // ---------------------------------------------------------------- gate and steps

  /** The readiness gate completed, with {@code error} if it failed. */
  Transition gateCompleted(Phase phase, @Nullable String error) {
    if (!(phase instanceof Phase.AwaitingGate)) {
      return Transition.stay(phase);
    }
    if (error != null) {
      return Transition.to(
          new Phase.AwaitingGate(error),
          Action.log(
              Action.Level.ERROR,
              "readiness gate failed, this candidate will not take part until restarted: "
                  + error));
    }
    return Transition.to(new Phase.Following(null), new Action.Follow(false));
  }

  /** The next step of {@code phase} is due, and no call is in flight. */
  Transition step(Phase phase, long now) {
    if (phase instanceof Phase.Following) {
      return Transition.to(phase, new Action.Look());
    }
    if (phase instanceof Phase.Leading leading) {
      return renewDue(leading, now);
    }
    if (phase instanceof Phase.Releasing) {
      return Transition.to(phase, new Action.Release());
    }
    if (phase instanceof Phase.SteppingDown steppingDown && !steppingDown.stopCallbackPending()) {
      return Transition.to(phase, new Action.ReleaseAfterStepDown());
    }
    return Transition.stay(phase);
  }

  // ---------------------------------------------------------------- lead and renew

  /**
   * This candidate's write of {@code record} at {@code version}, started at {@code start}, made it
   * leader of {@code term}.
   */
  Transition acquired(Term term, String version, LeaderRecord record, long start) {
    return Transition.to(
        new Phase.Leading(term, new Phase.Claim(version, record), start),
        new Action.StartTerm(term, new LockRead.Found(version, record)),
        new Action.ArmDeadline(start),
        new Action.ScheduleRenewal(start));
  }

  /** A renewal is due: renew, unless renewDeadline has passed since the last successful write. */
  Transition renewDue(Phase.Leading leading, long now) {
    if (now - leading.validFrom() >= renewDeadline) {
      return deadlineExceeded(leading);
    }
    return Transition.to(leading, new Action.Renew(leading));
  }

  /** A renewal of {@code renewed}, started at {@code start}, answered {@code result}. */
  Transition renewed(
      Phase.Leading leading, LockWrite result, long start, LeaderRecord renewed, long now) {
    if (result instanceof LockWrite.Written written) {
      Phase.Claim claim = new Phase.Claim(written.version(), renewed);
      return Transition.to(
          new Phase.Leading(leading.term(), claim, start),
          new Action.Succeeded("renew"),
          new Action.ExtendTerm(leading.term(), start + renewDeadline),
          new Action.See(new LockRead.Found(written.version(), renewed)),
          new Action.ArmDeadline(start),
          new Action.ScheduleRenewal(start));
    }
    if (result instanceof LockWrite.Conflict conflict) {
      // Someone else wrote the lock. Verifying first could be delayed (budget, errors), so the
      // term ends now; if a read shows the record is still ours, a new term starts after a write.
      Phase.Claim overwritten = new Phase.Claim(leading.claim().version(), null);
      return Transition.to(
          new Phase.Following(overwritten),
          Action.log(
              Action.Level.DEBUG,
              "renew conflicted (" + conflict.detail() + "); stepping down and reading the lock"),
          new Action.EndTerm(leading.term(), TermEnd.LOCK_LOST, Action.AfterStop.NOTHING),
          new Action.MarkStale(),
          new Action.Follow(false));
    }
    LockFailure failure = ((LockWrite.Failed) result).failure(); // the last of three kinds
    long left = leading.validFrom() + renewDeadline - now;
    // The next try comes a retryPeriod after this one started, as renewals do: a renewal that
    // failed slowly (a call that timed out, a server that answered late) is retried at once, so a
    // stalled request does not cost the rest of the deadline a retry period more.
    long sinceStart = now - start;
    return Transition.to(
        leading,
        new Action.Failed(
            "renew",
            failure,
            "Stepping down in " + Duration.ofNanos(left) + " unless a renewal succeeds."),
        new Action.ScheduleStep(Math.min(Math.max(0, retry - sinceStart), Math.max(0, left))));
  }

  /** The renew deadline timer is due. */
  Transition deadlineDue(Phase phase, long now) {
    if (!(phase instanceof Phase.Leading leading)) {
      return Transition.stay(phase);
    }
    if (now - leading.validFrom() >= renewDeadline) {
      return deadlineExceeded(leading);
    }
    return Transition.to(leading, new Action.ArmDeadline(leading.validFrom()));
  }

  private Transition deadlineExceeded(Phase.Leading leading) {
    return Transition.to(
        new Phase.Following(leading.claim()),
        Action.log(
            Action.Level.ERROR,
            "lost leadership: no successful renewal within renewDeadline " + renewDeadlineSetting),
        new Action.EndTerm(
            leading.term(), TermEnd.RENEW_DEADLINE_EXCEEDED, Action.AfterStop.NOTHING),
        new Action.Follow(true));
  }

  // ---------------------------------------------------------------- step down on request

  /** Stepping down, holding back until {@code until}, was asked: a leader not closing does. */
  Transition stepDownAsked(Phase phase, boolean closeRequested, long until) {
    if (!(phase instanceof Phase.Leading leading) || closeRequested) {
      return Transition.stay(phase);
    }
    return Transition.to(
        new Phase.SteppingDown(leading.claim(), true, until),
        new Action.HoldOff(until),
        new Action.EndTerm(leading.term(), TermEnd.STEPPED_DOWN, Action.AfterStop.STEP_DOWN));
  }

  /**
   * The watch shows the lock, still naming this leader, asking that another identity lead next: the
   * term ends as on request, and the release goes over the version that carries the request.
   */
  Transition handOverAsked(Phase.Leading leading, LockRead.Found found, long until) {
    return Transition.to(
        new Phase.SteppingDown(new Phase.Claim(found.version(), found.record()), true, until),
        new Action.See(found),
        Action.log(
            Action.Level.INFO,
            found.record().preferredHolder()
                + " is asked to lead next; stepping down (term "
                + leading.term().fencingToken()
                + ")"),
        new Action.EndTerm(leading.term(), TermEnd.STEPPED_DOWN, Action.AfterStop.STEP_DOWN));
  }

  /**
   * A follower finds the lock, as {@code seen}, still naming itself and asking for another
   * identity: it releases it for that identity, holding back until {@code until}.
   */
  Transition releaseAsked(LockRead.Found seen, long until) {
    return Transition.to(
        new Phase.SteppingDown(new Phase.Claim(seen.version(), seen.record()), false, until),
        Action.log(
            Action.Level.INFO,
            "the lock still names this candidate and asks that "
                + seen.record().preferredHolder()
                + " lead next; releasing it"),
        new Action.ReleaseAfterStepDown());
  }

  /** onStoppedLeading returned after a step-down (or after close began meanwhile). */
  Transition stepDownCallbackReturned(Phase phase) {
    if (phase instanceof Phase.SteppingDown steppingDown) {
      return Transition.to(
          new Phase.SteppingDown(steppingDown.claim(), false, steppingDown.holdOffUntil()),
          new Action.ReleaseAfterStepDown());
    }
    return stopCallbackReturned(phase); // close began while the stop callback ran
  }

  /**
   * A stepped-down candidate releases its claim, as close does, but stays a candidate; {@code
   * seenRecord} is the record last observed, released if the claim lost its own.
   */
  Transition releaseAfterStepDown(
      Phase.SteppingDown steppingDown, boolean callInFlight, @Nullable LeaderRecord seenRecord) {
    if (callInFlight) {
      return Transition.stay(steppingDown); // a renewal sent before; its answer comes to step
    }
    Phase.Claim claim = steppingDown.claim();
    LeaderRecord base = claim.record() != null ? claim.record() : seenRecord;
    if (base == null) {
      return Transition.to(new Phase.Following(claim), new Action.Follow(false));
    }
    return Transition.to(steppingDown, new Action.WriteRelease(claim, base, true));
  }

  /** The release after a step-down over {@code claim} answered {@code result}. */
  Transition releasedAfterStepDown(LockWrite result, Phase.Claim claim) {
    if (result instanceof LockWrite.Written) {
      return Transition.to(
          new Phase.Following(null),
          Action.log(Action.Level.INFO, "released the lock after stepping down; still a candidate"),
          new Action.Follow(false));
    }
    if (result instanceof LockWrite.Conflict) {
      // Someone else wrote it: not ours to release any more.
      return Transition.to(new Phase.Following(null), new Action.Follow(false));
    }
    return Transition.to(
        new Phase.Following(claim),
        new Action.Failed(
            "release",
            ((LockWrite.Failed) result).failure(),
            "The lock will expire after its lease duration; following until then."),
        new Action.Follow(false));
  }

  // ---------------------------------------------------------------- release and close

  /** Close was asked for, after start. */
  Transition closeAsked(Phase phase) {
    if (Phase.closing(phase)) {
      return Transition.stay(phase);
    }
    Phase.Closing closing = new Phase.Closing(Phase.claimOf(phase), true);
    // A stop callback still running after a step-down comes back to stopCallbackReturned too.
    boolean stopPending =
        phase instanceof Phase.Leading
            || (phase instanceof Phase.SteppingDown steppingDown
                && steppingDown.stopCallbackPending());
    List<Action> actions = new ArrayList<>();
    actions.add(new Action.CancelStep());
    if (phase instanceof Phase.Leading leading) {
      actions.add(new Action.EndTerm(leading.term(), TermEnd.CLOSED, Action.AfterStop.CLOSE));
    }
    actions.add(new Action.NewEpoch());
    actions.add(new Action.ArmCloseTimer());
    if (!stopPending) {
      actions.add(new Action.StopCallbackReturnedLater());
    }
    return new Transition(closing, actions);
  }

  /** The stop callback returned while closing (or close found none running). */
  Transition stopCallbackReturned(Phase phase) {
    if (phase instanceof Phase.Closing closing) {
      return Transition.to(new Phase.Closing(closing.claim(), false), new Action.ReleaseOrFinish());
    }
    return Transition.stay(phase);
  }

  /**
   * Closing once the stop callback returned: finish, or release the claim once no write that may
   * yet name this candidate is in flight.
   */
  Transition releaseOrFinish(Phase phase, boolean writeInFlight, boolean callInFlight) {
    if (!(phase instanceof Phase.Closing closing) || closing.stopCallbackPending()) {
      return Transition.stay(phase);
    }
    if (!releaseOnClose) {
      return Transition.to(new Phase.Closed(), new Action.Finish());
    }
    if (writeInFlight) {
      return Transition.stay(phase); // the write may yet name us; its completion comes back here
    }
    Phase.Claim claim = closing.claim();
    if (claim == null) {
      return Transition.to(new Phase.Closed(), new Action.Finish());
    }
    if (callInFlight) {
      return Transition.stay(phase); // the call's completion comes back here
    }
    return Transition.to(new Phase.Releasing(claim), new Action.Release());
  }

  /** A release on close is due; {@code seenRecord} as for {@link #releaseAfterStepDown}. */
  Transition releaseDue(Phase.Releasing releasing, @Nullable LeaderRecord seenRecord) {
    Phase.Claim claim = releasing.claim();
    LeaderRecord base = claim.record() != null ? claim.record() : seenRecord;
    if (base == null) {
      return Transition.to(new Phase.Closed(), new Action.Finish());
    }
    return Transition.to(releasing, new Action.WriteRelease(claim, base, false));
  }

  /** The release on close answered {@code result}. */
  Transition released(Phase.Releasing releasing, LockWrite result) {
    if (result instanceof LockWrite.Written) {
      return Transition.to(
          new Phase.Closed(),
          Action.log(Action.Level.INFO, "released the lock"),
          new Action.Finish());
    }
    if (result instanceof LockWrite.Conflict) {
      return Transition.to(releasing, new Action.ReadForRelease());
    }
    return Transition.to(
        releasing,
        new Action.Failed(
            "release", ((LockWrite.Failed) result).failure(), "Retrying until closeTimeout."),
        new Action.ScheduleStep(retry / 2));
  }

  /** The read after a conflicting release answered {@code result}. */
  Transition readForRelease(Phase.Releasing releasing, LockRead result) {
    if (result instanceof LockRead.Found found && found.record().isHeldBy(identity)) {
      return Transition.to(
          new Phase.Releasing(new Phase.Claim(found.version(), found.record())),
          new Action.Release());
    }
    if (result instanceof LockRead.Failed failed) {
      return Transition.to(
          releasing,
          new Action.Failed("release", failed.failure(), "Retrying until closeTimeout."),
          new Action.ScheduleStep(retry / 2));
    }
    return Transition.to(new Phase.Closed(), new Action.Finish()); // no longer ours
  }

  /** closeTimeout passed since close began. */
  Transition closeTimedOut(Phase phase) {
    if (!(phase instanceof Phase.Closing || phase instanceof Phase.Releasing)) {
      return Transition.stay(phase);
    }
    return Transition.to(
        new Phase.Closed(),
        Action.log(
            Action.Level.WARN,
            "close did not finish within closeTimeout "
                + closeTimeout
                + "; "
                + (Phase.claimOf(phase) != null && releaseOnClose
                    ? "the lock was not released and will expire after its lease duration"
                    : "a stop callback may still be running")),
        new Action.Finish());
  }

  // ---------------------------------------------------------------- answers to earlier phases

  /**
   * A call issued in an earlier phase answered: a write that took effect left a record naming this
   * candidate, whose version and token the phase keeps so that close may release it.
   */
  Transition answeredEarlierPhase(
      Phase phase, CallAnswer answer, @Nullable LeaderRecord writing, boolean stepScheduled) {
    Phase next =
        answer
            .writtenVersion()
            .map(version -> Phase.withClaim(phase, new Phase.Claim(version, writing)))
            .orElse(phase);
    if (next instanceof Phase.Closing || next instanceof Phase.Releasing) {
      return Transition.to(next, new Action.ReleaseOrFinish());
    }
    if (stepScheduled) {
      return Transition.stay(next);
    }
    boolean atOnce = next instanceof Phase.Leading || next instanceof Phase.SteppingDown;
    return Transition.to(next, atOnce ? new Action.ScheduleStep(0) : new Action.ScheduleRetry());
  }
}
