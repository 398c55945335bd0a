package dev.elector;

import dev.elector.internal.ElectorAccess;
import dev.elector.internal.candidate.Candidate;
import dev.elector.internal.candidate.Effect;
import dev.elector.internal.candidate.Event;
import dev.elector.internal.candidate.Phase;
import dev.elector.internal.candidate.State;
import dev.elector.internal.time.SerialExecutor;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one driver of a candidate's {@link Candidate state machine}: it feeds the machine events (the
 * user's requests, timers, lock answers, watch events, callbacks' returns) under its monitor, one
 * at a time, and runs the {@link Effect}s each transition returns. It owns what the machine must
 * not: the scheduler's timers, the lock call in flight and its callTimeout, the watch subscription,
 * the {@link Term} handed to the user, and the counters, log and callbacks. It decides nothing:
 * every decision is the machine's.
 */
final class Election implements ElectorAccess.Sight {
  /** Election logs go under the elector's name, which operators configure. */
  static final Logger log = LoggerFactory.getLogger("dev.elector.LeaderElector");

  private final Object monitor = new Object();
  private final ElectorConfig config;
  private final LeaderLock lock;
  private final String identity;
  private final String subject;
  private final MonotonicClock clock;
  private final Clock wall;
  private final Scheduler scheduler;
  private final Executor callbackExecutor;
  private final RandomGenerator random;
  private final Timings timings;
  private final Backoff backoff;
  private final Candidate machine;
  private final ElectionCounters counters = new ElectionCounters();
  private final Dispatcher dispatcher;
  private final FailureLog failureLog;
  private final Health health;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final @Nullable SharedThreads shared;

  /**
   * Watch events in the order the watch delivered them: the scheduler may run two tasks on two
   * threads, and an older event taken in after a newer one would turn the view back.
   */
  private final SerialExecutor watchEvents;

  /** Written under the monitor; read without it by the queries. */
  private volatile State state;

  /** The term being led, handed to the user; written under the monitor. */
  private volatile @Nullable Term term;

  /** The holder the lock named when last seen; readable without the monitor. */
  private volatile @Nullable String leader;

  // Guarded by monitor.
  private boolean started;
  private boolean finished;
  private @Nullable Closeable subscription;

  /** The lock answered a watch with empty: it cannot be watched, the candidate polls. */
  private boolean watchUnsupported;

  private @Nullable Future<?> nextStep;
  private @Nullable Future<?> deadlineTimer;
  private @Nullable Future<?> closeTimer;
  private @Nullable PendingCall pending;

  /** The stage of the call in flight, to cancel when the election stops waiting for it. */
  private @Nullable CompletionStage<?> pendingStage;

  /**
   * The last call cancelled: its stage completing with the cancellation is no late result. Written
   * under the monitor, read where the lock completes the stage.
   */
  private volatile long cancelledSeq;

  /** The call in flight: what the driver needs to time, cancel and count it. */
  private record PendingCall(long seq, LockCall kind, long start, @Nullable Future<?> timer) {}

  Election(ElectorConfig config) {
    this.config = config;
    this.lock = config.lock();
    this.identity = lock.identity();
    this.subject = lock.describe() + " [" + identity + "]";
    this.clock = config.clock();
    this.wall = config.wallClock();
    boolean needShared = config.scheduler().isEmpty() || config.callbackExecutor().isEmpty();
    SharedThreads threads = needShared ? SharedThreads.acquire() : null;
    this.shared = threads;
    this.scheduler =
        threads == null
            ? config.scheduler().orElseThrow()
            : config.scheduler().orElse(threads.scheduler);
    this.callbackExecutor =
        threads == null
            ? config.callbackExecutor().orElseThrow()
            : config.callbackExecutor().orElse(threads.callbackExecutor());
    this.random = config.random().orElseGet(SplittableRandom::new);
    this.timings = Timings.of(config);
    this.backoff = new Backoff(timings.retry(), timings.maxBackoff(), config.jitter());
    this.machine =
        new Candidate(
            new Candidate.Settings(
                identity,
                config.leaseDuration(),
                config.renewDeadline(),
                config.retryPeriod(),
                config.closeTimeout(),
                config.releaseOnClose(),
                ElectorConfig.CALL_BURST,
                ElectorConfig.CALLS_PER_RETRY_PERIOD));
    this.state = machine.initial();
    this.dispatcher = new Dispatcher(callbackExecutor, config.notifiedListener(), subject, log);
    this.failureLog = new FailureLog(log, subject);
    this.health = new Health(subject, timings, config.leaseDuration(), config.healthTolerance());
    this.watchEvents = new SerialExecutor(this::execute);
  }

  // ---------------------------------------------------------------- the user's requests

  void start() {
    synchronized (monitor) {
      if (started) {
        throw new IllegalStateException(subject + " was already started");
      }
      if (state.closeRequested()) {
        throw new IllegalStateException(subject + " is closed");
      }
      started = true;
      log.debug("{}: starting with {}", subject, config);
      CompletableFuture<?> gate = config.readinessGate().toCompletableFuture();
      if (gate.isDone() && !gate.isCompletedExceptionally()) {
        apply(new Event.GateCompleted(null));
      } else {
        log.info("{}: waiting for the readiness gate before taking part", subject);
        // The gate's outcome is handled as a step; the stage whenComplete returns adds nothing.
        var unused =
            gate.whenComplete(
                (ignored, error) ->
                    executeLocked(
                        () ->
                            apply(
                                new Event.GateCompleted(
                                    error == null ? null : String.valueOf(error)))));
      }
    }
  }

  CompletableFuture<Void> closeAsync() {
    synchronized (monitor) {
      if (!state.closeRequested()) {
        if (!started) {
          apply(new Event.CloseBeforeStart());
        } else {
          apply(new Event.CloseRequested());
          executeLocked(() -> apply(new Event.Close()));
        }
      }
    }
    return closed;
  }

  /**
   * Ends the term on request, releases the lock once the stop callback returned, and follows,
   * holding back from the lock for {@code holdOffNanos}; false when not leading or closing.
   */
  boolean requestStepDown(long holdOffNanos) {
    synchronized (monitor) {
      Phase before = state.phase();
      apply(new Event.StepDownAsked(clock.nanos() + holdOffNanos));
      return state.phase() != before;
    }
  }

  /**
   * Holds this candidate back from taking the lock until {@code holdOffNanos} from now, replacing
   * any earlier hold (a step-down's included); zero lets it compete at once. A term goes on: only
   * the next acquisition waits. Works before start too.
   */
  void holdOff(long holdOffNanos) {
    synchronized (monitor) {
      apply(new Event.HoldOffAsked(clock.nanos() + holdOffNanos));
    }
  }

  // ---------------------------------------------------------------- the driver's loop

  /** Feeds {@code event} to the machine and runs the effects of its transition; under monitor. */
  private void apply(Event event) {
    Candidate.Step step =
        machine.next(state, event, new Candidate.Moment(clock.nanos(), wall.instant()));
    state = step.next();
    for (Effect effect : step.effects()) {
      run(effect);
    }
  }

  private void run(Effect effect) {
    if (effect instanceof Effect.Log entry) {
      switch (entry.level()) {
        case DEBUG -> log.debug("{}: {}", subject, entry.message());
        case INFO -> log.info("{}: {}", subject, entry.message());
        case WARN -> log.warn("{}: {}", subject, entry.message());
        case ERROR -> log.error("{}: {}", subject, entry.message());
      }
    } else if (effect instanceof Effect.ScheduleStep step) {
      cancel(nextStep);
      nextStep = scheduler.schedule(this::stepDue, nanos(step.delay()));
    } else if (effect instanceof Effect.CancelStep) {
      cancel(nextStep);
      nextStep = null;
    } else if (effect instanceof Effect.ArmDeadline arm) {
      cancel(deadlineTimer);
      deadlineTimer =
          scheduler.schedule(() -> locked(() -> apply(new Event.DeadlineDue())), arm.delayNanos());
    } else if (effect instanceof Effect.CancelDeadline) {
      cancel(deadlineTimer);
    } else if (effect instanceof Effect.ArmCloseTimer arm) {
      closeTimer =
          scheduler.schedule(
              () -> locked(() -> apply(new Event.CloseTimedOut())), arm.delayNanos());
    } else if (effect instanceof Effect.Call call) {
      call(call);
    } else if (effect instanceof Effect.CallDeferred deferred) {
      counters.deferred();
      Duration wait = Duration.ofNanos(deferred.waitNanos());
      dispatcher.listener(l -> l.onCallDeferred(wait));
      log.debug("{}: call budget spent, waiting {}", subject, wait);
    } else if (effect instanceof Effect.Watch) {
      watch();
    } else if (effect instanceof Effect.StartTerm start) {
      startTerm(start);
    } else if (effect instanceof Effect.ExtendTerm extend) {
      Objects.requireNonNull(term, "a term to extend").extend(extend.validUntil());
    } else if (effect instanceof Effect.EndTerm end) {
      endTerm(end);
    } else if (effect instanceof Effect.LeaderObserved observed) {
      String holder = observed.holder();
      leader = holder.isEmpty() ? null : holder;
      dispatcher.listener(l -> l.onLeaderObserved(holder));
      if (!holder.isEmpty()) {
        dispatcher.callback("onNewLeader", () -> config.callbacks().onNewLeader(holder));
      }
    } else if (effect instanceof Effect.Succeeded succeeded) {
      failureLog.success(succeeded.call());
    } else if (effect instanceof Effect.Failed failed) {
      failureLog.failure(failed.call(), failed.failure(), clock.nanos(), failed.consequence());
    } else if (effect instanceof Effect.Finish) {
      finish();
    }
  }

  private void stepDue() {
    synchronized (monitor) {
      nextStep = null;
      apply(new Event.StepDue());
    }
  }

  /** The delay in nanoseconds, drawing the jitter where there is one. */
  private long nanos(Effect.Delay delay) {
    if (delay instanceof Effect.Delay.Exactly exactly) {
      return exactly.nanos();
    }
    if (delay instanceof Effect.Delay.Retry retry) {
      // One retry period with jitter: electors that started together would otherwise renew
      // together forever; the draw spreads them within the bound the config checks.
      long due = retry.from() + backoff.retry(random.nextDouble()) - clock.nanos();
      return Math.min(retry.cap(), Math.max(0, due));
    }
    Effect.Delay.Backoff after = (Effect.Delay.Backoff) delay;
    double draw = random.nextDouble();
    return backoff.afterFailures(after.failures(), draw, after.takeableIn());
  }

  private void startTerm(Effect.StartTerm start) {
    Term started =
        new Term(
            identity,
            lock.describe(),
            start.token(),
            start.startedAt(),
            callbackExecutor,
            clock,
            start.validUntil());
    term = started;
    counters.termStarted();
    dispatcher.listener(l -> l.onTermStarted(started));
    dispatcher.callback("onStartedLeading", () -> config.callbacks().onStartedLeading(started));
  }

  private void endTerm(Effect.EndTerm end) {
    Term ended = Objects.requireNonNull(term, "a term to end");
    term = null;
    TermEnd reason =
        switch (end.reason()) {
          case LOCK_LOST -> TermEnd.LOCK_LOST;
          case RENEW_DEADLINE_EXCEEDED -> TermEnd.RENEW_DEADLINE_EXCEEDED;
          case STEPPED_DOWN -> TermEnd.STEPPED_DOWN;
          case CLOSED -> TermEnd.CLOSED;
        };
    ended.end(reason);
    counters.termEnded(reason);
    if (reason == TermEnd.CLOSED) {
      log.info("{}: stopped leading (term {}): closing", subject, ended.fencingToken());
    } else if (reason != TermEnd.RENEW_DEADLINE_EXCEEDED) {
      log.warn("{}: stopped leading (term {}): {}", subject, ended.fencingToken(), reason);
    }
    dispatcher.listener(l -> l.onTermEnded(ended, reason));
    long token = end.token();
    dispatcher.callback(
        "onStoppedLeading",
        () -> config.callbacks().onStoppedLeading(ended, reason),
        () -> executeLocked(() -> apply(new Event.StopCallbackReturned(token))));
  }

  private void watch() {
    if (subscription != null || !config.watchWhenFollowing() || watchUnsupported) {
      return;
    }
    try {
      subscription =
          lock.watch(
                  event -> watchEvents.execute(() -> locked(() -> apply(new Event.Watched(event)))))
              .orElse(null);
      if (subscription == null) {
        watchUnsupported = true;
        return;
      }
      log.debug("{}: watching the lock", subject);
    } catch (RuntimeException e) {
      log.warn("{}: could not watch the lock, polling instead: {}", subject, e.toString());
    }
  }

  /** Stops every timer and waits for no call any more; idempotent. */
  private void finish() {
    if (finished) {
      return;
    }
    finished = true;
    cancel(nextStep);
    cancel(closeTimer);
    cancel(deadlineTimer);
    nextStep = null;
    abandonCall(); // close waits no longer for a call in flight
    // Only now: ending a watch stream stalls the next requests on its HTTP/2 connection (about
    // 40 ms with client-java's OkHttp), which must not delay the release.
    if (subscription != null) {
      try {
        subscription.close();
      } catch (IOException | RuntimeException e) {
        log.debug("{}: closing the watch failed: {}", subject, e.toString());
      }
      subscription = null;
    }
    log.debug("{}: closed", subject);
    if (shared != null) {
      shared.release();
    }
    closed.complete(null);
  }

  // ---------------------------------------------------------------- lock calls

  /**
   * Makes the machine's call, bounded by callTimeout: its answer, or a timeout, comes back as an
   * event with the call's number. A call the election stops waiting for (timed out, or in flight
   * when it finishes) is cancelled, which tells the lock to stop its I/O; a result that arrives all
   * the same is counted as late and dropped.
   */
  private void call(Effect.Call call) {
    long start = clock.nanos();
    LockCall kind =
        switch (call.purpose()) {
          case LOOK, VERIFY, READ_FOR_RELEASE -> LockCall.READ;
          case FIRST_CREATE, CREATE, ACQUIRE -> LockCall.ACQUIRE;
          case RENEW, RENEW_OVER_EDIT -> LockCall.RENEW;
          case RELEASE, RELEASE_AFTER_STEP_DOWN -> LockCall.RELEASE;
        };
    Duration timeout = config.callTimeout();
    Future<?> timer =
        scheduler.schedule(
            () -> {
              LockFailure timedOut =
                  LockFailure.of(
                      LockFailure.Kind.TIMEOUT,
                      call.kind() + " took longer than callTimeout " + timeout);
              answered(call, timedOut, true);
            },
            timings.callTimeout());
    pending = new PendingCall(call.seq(), kind, start, timer);
    CompletionStage<?> stage;
    try {
      stage =
          Objects.requireNonNull(
              switch (call.kind()) {
                case READ -> lock.read(timeout);
                case CREATE -> lock.create(Objects.requireNonNull(call.record()), timeout);
                case UPDATE ->
                    lock.update(
                        Objects.requireNonNull(call.version()),
                        Objects.requireNonNull(call.record()),
                        timeout);
              },
              "the lock returned a null stage");
    } catch (RuntimeException e) {
      stage = CompletableFuture.completedFuture(unexpected(e));
    }
    pendingStage = stage;
    stage.whenComplete(
        (value, error) -> {
          if (error instanceof CancellationException && call.seq() == cancelledSeq) {
            return; // the election's own cancellation: it stopped waiting before
          }
          Object result =
              error != null
                  ? unexpected(error)
                  : value == null
                      ? LockFailure.of(
                          LockFailure.Kind.UNEXPECTED,
                          "the lock completed " + call.kind() + " with null")
                      : value;
          execute(() -> answered(call, result, false));
        });
  }

  private void answered(Effect.Call call, Object result, boolean timedOut) {
    synchronized (monitor) {
      PendingCall current = pending;
      if (current == null || current.seq() != call.seq()) {
        if (!timedOut) {
          counters.lateResult();
        }
        return;
      }
      CompletionStage<?> stage = pendingStage;
      pending = null;
      pendingStage = null;
      cancel(current.timer());
      if (timedOut && stage != null) {
        cancelStage(current.seq(), current.kind(), stage);
      }
      long now = clock.nanos();
      boolean read = call.kind() == Effect.Kind.READ;
      CallAnswer answer =
          read ? new CallAnswer.Read((LockRead) result) : new CallAnswer.Write((LockWrite) result);
      CallOutcome outcome = answer.outcome(timedOut);
      counters.call(current.kind(), outcome, now - current.start());
      Duration latency = Duration.ofNanos(now - current.start());
      dispatcher.listener(l -> l.onLockCall(current.kind(), outcome, latency));
      apply(
          read
              ? new Event.ReadAnswered(call.seq(), (LockRead) result)
              : new Event.WriteAnswered(call.seq(), (LockWrite) result));
    }
  }

  /** Stops waiting for the call in flight, if any, and cancels it. */
  private void abandonCall() {
    PendingCall current = pending;
    CompletionStage<?> stage = pendingStage;
    pending = null;
    pendingStage = null;
    if (current != null) {
      cancel(current.timer());
      if (stage != null) {
        cancelStage(current.seq(), current.kind(), stage);
      }
    }
  }

  /**
   * Cancels {@code stage}, so the lock learns that nobody waits for it. A stage that cannot be
   * cancelled (a minimal stage, say) completes in its own time, as a late result.
   */
  private void cancelStage(long seq, LockCall kind, CompletionStage<?> stage) {
    cancelledSeq = seq;
    try {
      stage.toCompletableFuture().cancel(false);
    } catch (UnsupportedOperationException e) {
      log.debug("{}: the stage of {} cannot be cancelled", subject, kind);
    }
  }

  private static LockFailure unexpected(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return new LockFailure(LockFailure.Kind.UNEXPECTED, String.valueOf(cause), cause);
  }

  // ---------------------------------------------------------------- scheduling

  /** Runs {@code task} on the scheduler; dropped once the scheduler stopped. */
  private void execute(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("{}: scheduler stopped, dropping a step", subject);
    }
  }

  /** Runs {@code task} on the scheduler under the monitor. */
  private void executeLocked(Runnable task) {
    execute(() -> locked(task));
  }

  private void locked(Runnable task) {
    synchronized (monitor) {
      task.run();
    }
  }

  private static void cancel(@Nullable Future<?> task) {
    if (task != null) {
      task.cancel(false);
    }
  }

  // ---------------------------------------------------------------- queries

  @Override
  public Optional<String> liveHolder() {
    synchronized (monitor) {
      return machine.liveHolder(state, false, clock.nanos());
    }
  }

  @Override
  public Optional<String> renewingHolder() {
    synchronized (monitor) {
      return machine.liveHolder(state, true, clock.nanos());
    }
  }

  @Override
  public boolean seesTheLock() {
    synchronized (monitor) {
      return machine.seesTheLock(state);
    }
  }

  @Override
  public Scheduler scheduler() {
    return scheduler;
  }

  String identity() {
    return identity;
  }

  long closeTimeoutMillis() {
    return config.closeTimeout().toMillis();
  }

  Duration leaseDuration() {
    return config.leaseDuration();
  }

  String describe() {
    return lock.describe();
  }

  /** The term being led. */
  Optional<Term> currentTerm() {
    return Optional.ofNullable(term);
  }

  Optional<String> observedLeader() {
    return Optional.ofNullable(leader);
  }

  boolean closingFromOwnCallback() {
    return dispatcher.inCallback();
  }

  void awaitSharedThreadsStopped(long millis) {
    if (shared != null) {
      shared.awaitStopped(millis);
    }
  }

  /** How a follower learns of changes, for its status line. */
  private static String describeWatch(State now, boolean subscribed) {
    if (!subscribed) {
      return "";
    }
    LockFailure failure = now.watch().failure();
    return failure == null
        ? "; watching the lock"
        : "; polling while the watch is interrupted: " + failure;
  }

  ElectorStats stats() {
    State now;
    long at;
    boolean subscribed;
    Optional<String> leader;
    synchronized (monitor) { // field reads only; the status line is written after
      now = state;
      at = clock.nanos();
      subscribed = subscription != null;
      leader = observedLeader();
    }
    boolean following = now.phase() instanceof Phase.Following;
    boolean watching = following && subscribed && now.watch().failure() == null;
    Health.Report report =
        health.report(
            now.phase(),
            at,
            now.view().current(),
            now.failures(),
            now.lastFailure(),
            describeWatch(now, subscribed));
    return counters.snapshot(
        now.phase() instanceof Phase.Leading,
        leader,
        watching,
        following && !watching,
        now.failures(),
        report.healthy(),
        report.status());
  }
}
