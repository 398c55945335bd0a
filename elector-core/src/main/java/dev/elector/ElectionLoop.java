package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mechanism under an {@link Election}, which holds the policy: the parts wired from the config,
 * one step at a time on the scheduler under this object's monitor, lock calls whose results reach
 * the phase that asked (an {@code epoch} bumped on every change of phase tells a result that
 * answers an earlier one), and the queries.
 */
abstract class ElectionLoop {
  static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

  final ElectorConfig config;
  final LeaderLock lock;
  final String identity;
  final String subject;
  final MonotonicClock clock;
  final Clock wall;
  final Scheduler scheduler;
  final Executor callbackExecutor;
  final LeaderCallbacks callbacks;
  final Timings timings;
  final TakeoverRule rule;
  final FailureLog failureLog;
  final ElectionCounters counters = new ElectionCounters();
  final Dispatcher dispatcher;
  final LockView view;
  final LockWatching watching;
  final LockCaller caller;
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final RandomGenerator random;
  private final Backoff backoff;
  private final Health health;
  private final @Nullable SharedThreads shared;

  // Guarded by this.
  Phase phase = new Phase.AwaitingGate(null);
  private boolean started;
  private boolean closeRequested;
  @Nullable Cancellable deadlineTimer;
  private @Nullable Cancellable closeTimer;
  long epoch;
  int consecutiveFailures;
  @Nullable LockFailure lastFailure;
  @Nullable Cancellable nextStep;

  // Read without the monitor by queries.
  volatile @Nullable Term currentTerm;

  ElectionLoop(ElectorConfig config) {
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
    this.callbacks = config.callbacks();
    this.random = config.random().orElseGet(SplittableRandom::new);
    this.timings = Timings.of(config);
    this.backoff = new Backoff(timings.retry(), timings.maxBackoff(), config.jitter());
    this.rule = new TakeoverRule(identity, timings.lease());
    this.health = new Health(subject, timings, config.leaseDuration(), config.healthTolerance());
    this.failureLog = new FailureLog(log, subject);
    this.dispatcher =
        new Dispatcher(this, callbackExecutor, config.notifiedListener(), subject, log);
    this.view =
        new LockView(rule, identity, subject, config.leaseDuration(), dispatcher, callbacks, log);
    this.watching = new LockWatching(subject, log);
    CallBudget budget =
        new CallBudget(
            ElectorConfig.CALL_BURST, timings.retry() / ElectorConfig.CALLS_PER_RETRY_PERIOD);
    this.caller =
        new LockCaller(
            this,
            lock,
            scheduler,
            clock,
            budget,
            config.callTimeout(),
            counters,
            dispatcher,
            this::execute,
            subject,
            log);
  }

  // ---------------------------------------------------------------- the policy's hooks

  /** Takes part: the election's first step, once started. */
  abstract void begin();

  /** Begins to close: runs on the scheduler once close is asked for after start. */
  abstract void beginClose();

  /** The renew deadline timer is due. */
  abstract void onDeadline();

  /** closeTimeout has passed since close began. */
  abstract void closeTimedOut();

  /** Takes the next step of the current phase; no call is in flight. */
  abstract void step();

  /** A call issued in an earlier phase has answered (a renewal in flight at step-down, say). */
  abstract void answeredEarlierPhase(LockCaller.Call call, Object result);

  // ---------------------------------------------------------------- start and finish

  synchronized void start() {
    if (started) {
      throw new IllegalStateException(subject + " was already started");
    }
    if (closeRequested) {
      throw new IllegalStateException(subject + " is closed");
    }
    started = true;
    log.debug("{}: starting with {}", subject, config);
    begin();
  }

  CompletableFuture<Void> closeAsync() {
    synchronized (this) {
      if (!closeRequested) {
        closeRequested = true;
        if (!started) {
          phase = new Phase.Closed();
          releaseShared();
          closed.complete(null);
        } else {
          execute(
              () -> {
                synchronized (this) {
                  beginClose();
                }
              });
        }
      }
    }
    return closed;
  }

  /** Whether close was asked for; read under this object's monitor. */
  final boolean closeRequested() {
    return closeRequested;
  }

  /** Stops everything and completes the close; idempotent. */
  final void finish() {
    if (phase instanceof Phase.Closed) {
      return;
    }
    phase = new Phase.Closed();
    epoch++;
    cancel(nextStep);
    cancel(closeTimer);
    cancel(deadlineTimer);
    caller.abandon(); // close waits no longer for a call in flight
    nextStep = null;
    // Only now: ending a watch stream stalls the next requests on its HTTP/2 connection (about
    // 40 ms with client-java's OkHttp), which must not delay the release.
    watching.close();
    log.debug("{}: closed", subject);
    releaseShared();
    closed.complete(null);
  }

  // ---------------------------------------------------------------- steps, timers and delays

  final void scheduleStep(long delayNanos) {
    cancel(nextStep);
    nextStep = scheduler.schedule(this::runStep, delayNanos);
  }

  private synchronized void runStep() {
    nextStep = null;
    if (caller.inFlight()) {
      return; // the call's completion schedules the next step
    }
    step();
  }

  /** Counts a failed call and backs off; the view may be stale, so the next step reads. */
  final void failed(LockFailure failure, String action, long now, String consequence) {
    consecutiveFailures++;
    lastFailure = failure;
    failureLog.failure(action, failure, now, consequence);
    watching.markStale();
    scheduleStep(failureDelay());
  }

  /** Arms the renew deadline: due once renewDeadline has passed since {@code validFrom}. */
  final void armDeadline(long validFrom, long now) {
    cancel(deadlineTimer);
    deadlineTimer =
        scheduler.schedule(
            () -> {
              synchronized (this) {
                onDeadline();
              }
            },
            validFrom + timings.renewDeadline() - now);
  }

  final void armCloseTimer() {
    closeTimer =
        scheduler.schedule(
            () -> {
              synchronized (this) {
                closeTimedOut();
              }
            },
            timings.closeTimeout());
  }

  /** One retry period with jitter: the pause between looks while nothing fails. */
  final long retryDelay() {
    return backoff.retry(random.nextDouble());
  }

  /**
   * The pause from one renewal's start to the next: retryPeriod × U[1, jitter], as between looks.
   * Electors that started together would otherwise renew together forever; the draw spreads them
   * within the bound the config checks (jitter × retryPeriod &lt; renewDeadline).
   */
  final long renewalDelay() {
    return backoff.retry(random.nextDouble());
  }

  /** The back-off after {@code consecutiveFailures} failures in a row. */
  final long failureDelay() {
    return backoff.afterFailures(consecutiveFailures, random.nextDouble());
  }

  final void execute(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("{}: scheduler stopped, dropping a step", subject);
    }
  }

  static void cancel(@Nullable Cancellable task) {
    if (task != null) {
      task.cancel();
    }
  }

  // ---------------------------------------------------------------- lock calls

  /** Receives a result that answers the current phase. */
  @FunctionalInterface
  interface Handler<T> {
    void handle(T result, long startNanos);
  }

  final void read(Handler<LockRead> handler) {
    deferIfSpent(caller.read(purposeOf(LockCall.READ), epoch, inThisPhase(handler)));
  }

  /** Writes {@code writing} with {@code op}; a release writes no record of its own (null). */
  final void write(
      LockCall kind,
      @Nullable LeaderRecord writing,
      Supplier<CompletionStage<LockWrite>> op,
      Handler<LockWrite> handler) {
    deferIfSpent(caller.write(kind, writing, purposeOf(kind), epoch, op, inThisPhase(handler)));
  }

  private void deferIfSpent(long wait) {
    if (wait > 0) {
      scheduleStep(wait);
    }
  }

  private <T> LockCaller.Completion<T> inThisPhase(Handler<T> handler) {
    return (call, result, start) -> {
      if (phase instanceof Phase.Closed) {
        return;
      }
      if (call.epoch() == epoch) {
        handler.handle(result, start);
      } else {
        answeredEarlierPhase(call, result);
      }
    };
  }

  /** What a call issued now is for: the phase tells an acquire from a renewal or a release. */
  private CallPurpose purposeOf(LockCall kind) {
    if (kind == LockCall.READ) {
      return CallPurpose.READ;
    }
    return phase instanceof Phase.Leading
        ? CallPurpose.RENEW
        : Phase.closing(phase) ? CallPurpose.RELEASE : CallPurpose.ACQUIRE;
  }

  // ---------------------------------------------------------------- shared threads

  final void releaseShared() {
    if (shared != null) {
      shared.release();
    }
  }

  void awaitSharedThreadsStopped(long millis) {
    if (shared != null) {
      shared.awaitStopped(millis);
    }
  }

  boolean closingFromOwnCallback() {
    return dispatcher.inCallback();
  }

  // ---------------------------------------------------------------- queries

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

  Optional<Term> currentTerm() {
    return Optional.ofNullable(currentTerm);
  }

  Optional<String> observedLeader() {
    return view.leader();
  }

  synchronized ElectorHealth health() {
    return health.report(
        phase,
        clock.nanos(),
        view.current(),
        consecutiveFailures,
        lastFailure,
        watching.describe());
  }

  ElectorStats stats() {
    ElectorStats.Following following;
    int failures;
    synchronized (this) { // a few field reads; steps never block while holding the monitor
      following =
          phase instanceof Phase.Following ? watching.following() : ElectorStats.Following.NONE;
      failures = consecutiveFailures;
    }
    return counters.snapshot(currentTerm != null, view.leader(), following, failures);
  }
}
