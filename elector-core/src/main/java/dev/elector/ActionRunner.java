package dev.elector;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockWrite;
import dev.elector.time.MonotonicClock;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Runs the {@link Action}s of the election's transitions: the one place where a change of phase
 * meets the loop, the view, the counters, the listener and the callbacks. An action that needs the
 * state it leaves behind asks its {@link PhaseOwner} for the next transition. Guarded by the loop's
 * monitor.
 */
final class ActionRunner implements Action.Effects {
  private static final Logger log = ElectionLoop.log;

  private final ElectionLoop loop;
  private final Transitions transitions;
  private final LockView view;
  private final Candidacy candidacy;
  private final FailureLog failureLog;
  private final LeaderCallbacks callbacks;
  private final String subject;
  private final MonotonicClock clock;
  private @Nullable PhaseOwner owner;

  ActionRunner(
      ElectionLoop loop,
      Transitions transitions,
      LockView view,
      Candidacy candidacy,
      FailureLog failureLog) {
    this.loop = loop;
    this.transitions = transitions;
    this.view = view;
    this.candidacy = candidacy;
    this.failureLog = failureLog;
    this.callbacks = loop.config.callbacks();
    this.subject = loop.subject;
    this.clock = loop.clock;
  }

  /** Binds the election; its start does, once. */
  void bind(PhaseOwner owner) {
    this.owner = owner;
  }

  private PhaseOwner owner() {
    PhaseOwner bound = owner;
    if (bound == null) {
      throw new IllegalStateException(subject + ": actions run only once started");
    }
    return bound;
  }

  @Override
  public void log(Action.Log action) {
    switch (action.level()) {
      case DEBUG -> log.debug("{}: {}", subject, action.message());
      case INFO -> log.info("{}: {}", subject, action.message());
      case WARN -> log.warn("{}: {}", subject, action.message());
      case ERROR -> log.error("{}: {}", subject, action.message());
    }
  }

  @Override
  public void scheduleStep(Action.ScheduleStep action) {
    loop.scheduleStep(action.delayNanos());
  }

  @Override
  public void scheduleRetry(Action.ScheduleRetry action) {
    loop.scheduleStep(loop.retryDelay());
  }

  @Override
  public void scheduleRenewal(Action.ScheduleRenewal action) {
    loop.scheduleStep(Math.max(0, action.from() + loop.retryDelay() - clock.nanos()));
  }

  @Override
  public void cancelStep(Action.CancelStep action) {
    loop.cancelStep();
  }

  @Override
  public void armDeadline(Action.ArmDeadline action) {
    loop.armDeadline(action.validFrom(), clock.nanos());
  }

  @Override
  public void armCloseTimer(Action.ArmCloseTimer action) {
    loop.armCloseTimer();
  }

  @Override
  public void newEpoch(Action.NewEpoch action) {
    loop.newEpoch();
  }

  @Override
  public void startTerm(Action.StartTerm action) {
    Term term = action.term();
    loop.newEpoch();
    candidacy.resetFailures();
    view.noteToken(term.fencingToken());
    view.see(action.written(), clock.nanos());
    loop.counters.termStarted();
    log.info("{}: started leading (term {})", subject, term.fencingToken());
    loop.dispatcher.listener(l -> l.onTermStarted(term));
    loop.dispatcher.callback("onStartedLeading", () -> callbacks.onStartedLeading(term));
  }

  @Override
  public void extendTerm(Action.ExtendTerm action) {
    action.term().extend(action.validUntil());
  }

  @Override
  public void endTerm(Action.EndTerm action) {
    Term ended = action.term();
    TermEnd reason = action.reason();
    loop.newEpoch();
    loop.cancelDeadline();
    loop.cancelStep();
    ended.end(reason);
    loop.counters.termEnded(reason);
    if (reason == TermEnd.CLOSED) {
      log.info("{}: stopped leading (term {}): closing", subject, ended.fencingToken());
    } else if (reason != TermEnd.RENEW_DEADLINE_EXCEEDED) {
      log.warn("{}: stopped leading (term {}): {}", subject, ended.fencingToken(), reason);
    }
    loop.dispatcher.listener(l -> l.onTermEnded(ended, reason));
    Runnable afterStop =
        switch (action.then()) {
          case NOTHING -> () -> {};
          case STEP_DOWN ->
              () ->
                  loop.executeLocked(
                      () -> owner().apply(transitions.stepDownCallbackReturned(owner().phase())));
          case CLOSE ->
              () ->
                  loop.executeLocked(
                      () -> owner().apply(transitions.stopCallbackReturned(owner().phase())));
        };
    loop.dispatcher.callback(
        "onStoppedLeading", () -> callbacks.onStoppedLeading(ended, reason), afterStop);
  }

  @Override
  public void see(Action.See action) {
    view.see(action.found(), clock.nanos());
  }

  @Override
  public void holdOff(Action.HoldOff action) {
    view.holdOff(action.until());
  }

  @Override
  public void markStale(Action.MarkStale action) {
    loop.watching.markStale();
  }

  @Override
  public void follow(Action.Follow action) {
    candidacy.follow(action.backOff() ? candidacy.backOffAfterDeadline() : 0);
  }

  @Override
  public void look(Action.Look action) {
    candidacy.look();
  }

  @Override
  public void renew(Action.Renew action) {
    LeaderRecord renewed = action.leading().record().withRenewTime(loop.wall.instant());
    String version = action.leading().claim().version();
    write(
        LockCall.UPDATE,
        renewed,
        () -> loop.lock.update(version, renewed),
        (result, start) -> {
          // A renewal answers in the epoch it was sent, which only a leader's renewals change.
          if (owner().phase() instanceof Phase.Leading leading) {
            owner().apply(transitions.renewed(leading, result, start, renewed, clock.nanos()));
          }
        });
  }

  @Override
  public void succeeded(Action.Succeeded action) {
    failureLog.success(action.call());
  }

  @Override
  public void failed(Action.Failed action) {
    failureLog.failure(action.call(), action.failure(), clock.nanos(), action.consequence());
  }

  @Override
  public void releaseAfterStepDown(Action.ReleaseAfterStepDown action) {
    if (owner().phase() instanceof Phase.SteppingDown steppingDown) {
      owner()
          .apply(transitions.releaseAfterStepDown(steppingDown, loop.callInFlight(), seenRecord()));
    }
  }

  @Override
  public void stopCallbackReturnedLater(Action.StopCallbackReturnedLater action) {
    loop.executeLocked(() -> owner().apply(transitions.stopCallbackReturned(owner().phase())));
  }

  @Override
  public void releaseOrFinish(Action.ReleaseOrFinish action) {
    owner()
        .apply(
            transitions.releaseOrFinish(
                owner().phase(), loop.writeInFlight(), loop.callInFlight()));
  }

  @Override
  public void release(Action.Release action) {
    if (owner().phase() instanceof Phase.Releasing releasing) {
      owner().apply(transitions.releaseDue(releasing, seenRecord()));
    }
  }

  @Override
  public void writeRelease(Action.WriteRelease action) {
    Phase.Claim claim = action.claim();
    LeaderRecord released = action.base().released(loop.wall.instant());
    write(
        LockCall.UPDATE,
        null,
        () -> loop.lock.update(claim.version(), released),
        (result, start) -> {
          if (action.stayCandidate()) {
            owner().apply(transitions.releasedAfterStepDown(result, claim));
          } else if (owner().phase() instanceof Phase.Releasing releasing) {
            owner().apply(transitions.released(releasing, result));
          }
        });
  }

  @Override
  public void readForRelease(Action.ReadForRelease action) {
    loop.read(
        CallPurpose.READ,
        (result, start) -> {
          if (owner().phase() instanceof Phase.Releasing releasing) {
            owner().apply(transitions.readForRelease(releasing, result));
          }
        });
  }

  @Override
  public void finish(Action.Finish action) {
    loop.finish();
  }

  private @Nullable LeaderRecord seenRecord() {
    Observation seen = view.current();
    return seen == null ? null : seen.record();
  }

  /** Writes with {@code op}, for what the phase says: a renewal, a release or an acquisition. */
  private void write(
      LockCall kind,
      @Nullable LeaderRecord writing,
      Supplier<CompletionStage<LockWrite>> op,
      ElectionLoop.Handler<LockWrite> handler) {
    CallPurpose purpose =
        owner().phase() instanceof Phase.Leading
            ? CallPurpose.RENEW
            : Phase.closing(owner().phase()) ? CallPurpose.RELEASE : CallPurpose.ACQUIRE;
    loop.write(kind, writing, purpose, op, handler);
  }
}
