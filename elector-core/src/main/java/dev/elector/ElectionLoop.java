package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mechanism an {@link Election} owns: the parts wired from the config, one task at a time on
 * the scheduler under {@link #monitor}, the step, deadline and close timers, and lock calls whose
 * results reach the phase that asked. The election bumps the {@code epoch} on every change of
 * phase, which tells a result that answers an earlier one. It decides nothing: what a step does,
 * and what a result means, are the {@link Policy}'s.
 */
final class ElectionLoop {
  static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

  /** What the loop calls back, under the monitor; bound once at start. */
  interface Policy {
    /** Takes the next step of the current phase; no call is in flight. */
    void step();

    /** The renew deadline timer is due. */
    void deadlineDue();

    /** closeTimeout has passed since close began. */
    void closeTimedOut();

    /** A call issued in an earlier phase has answered (a renewal in flight at step-down, say). */
    void answeredEarlierPhase(LockCaller.Call call, CallAnswer answer);
  }

  /** Receives a result that answers the current phase. */
  @FunctionalInterface
  interface Handler<T> {
    void handle(T result, long startNanos);
  }

  /** The one lock the election's state is guarded by. */
  final Object monitor = new Object();

  final ElectorConfig config;
  final LeaderLock lock;
  final String identity;
  final String subject;
  final MonotonicClock clock;
  final Clock wall;
  final Scheduler scheduler;
  final Executor callbackExecutor;
  final Timings timings;
  final ElectionCounters counters = new ElectionCounters();
  final Dispatcher dispatcher;
  final LockWatching watching;
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final LockCaller caller;
  private final RandomGenerator random;
  private final Backoff backoff;
  private final @Nullable SharedThreads shared;

  // Guarded by monitor.
  private @Nullable Policy policy;
  private boolean finished;
  private long epoch;
  private @Nullable Cancellable nextStep;
  private @Nullable Cancellable deadlineTimer;
  private @Nullable Cancellable closeTimer;

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
    this.random = config.random().orElseGet(SplittableRandom::new);
    this.timings = Timings.of(config);
    this.backoff = new Backoff(timings.retry(), timings.maxBackoff(), config.jitter());
    this.dispatcher = new Dispatcher(callbackExecutor, config.notifiedListener(), subject, log);
    this.watching = new LockWatching(subject, log);
    CallBudget budget =
        new CallBudget(
            ElectorConfig.CALL_BURST, timings.retry() / ElectorConfig.CALLS_PER_RETRY_PERIOD);
    Scheduler steps = scheduler;
    String name = subject;
    this.caller =
        new LockCaller(
            monitor,
            lock,
            scheduler,
            clock,
            budget,
            config.callTimeout(),
            counters,
            dispatcher,
            task -> execute(steps, name, task),
            subject,
            log);
  }

  /** Binds the policy the loop calls back; the election's start does, once. */
  void bind(Policy policy) {
    this.policy = policy;
  }

  private Policy policy() {
    Policy bound = policy;
    if (bound == null) {
      throw new IllegalStateException(subject + ": the loop runs only once started");
    }
    return bound;
  }

  /** A new phase began: results of calls issued before now answer an earlier phase. */
  void newEpoch() {
    epoch++;
  }

  /** Stops every timer and waits for no call any more; idempotent. */
  void finish() {
    if (finished) {
      return;
    }
    finished = true;
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

  void scheduleStep(long delayNanos) {
    cancel(nextStep);
    nextStep = scheduler.schedule(this::runStep, delayNanos);
  }

  /** Whether a step is scheduled. */
  boolean stepScheduled() {
    return nextStep != null;
  }

  /** Cancels the scheduled step, if any. */
  void cancelStep() {
    cancel(nextStep);
    nextStep = null;
  }

  private void runStep() {
    synchronized (monitor) {
      nextStep = null;
      if (caller.inFlight()) {
        return; // the call's completion schedules the next step
      }
      policy().step();
    }
  }

  /** Arms the renew deadline: due once renewDeadline has passed since {@code validFrom}. */
  void armDeadline(long validFrom, long now) {
    cancel(deadlineTimer);
    deadlineTimer =
        scheduler.schedule(
            () -> locked(() -> policy().deadlineDue()), validFrom + timings.renewDeadline() - now);
  }

  void cancelDeadline() {
    cancel(deadlineTimer);
  }

  void armCloseTimer() {
    closeTimer =
        scheduler.schedule(() -> locked(() -> policy().closeTimedOut()), timings.closeTimeout());
  }

  /**
   * One retry period with jitter: the pause between looks while nothing fails, and from one
   * renewal's start to the next. Electors that started together would otherwise renew together
   * forever; the draw spreads them within the bound the config checks (jitter × retryPeriod &lt;
   * renewDeadline).
   */
  long retryDelay() {
    return backoff.retry(random.nextDouble());
  }

  /** The back-off after {@code failures} failures in a row. */
  long failureDelay(int failures) {
    return backoff.afterFailures(failures, random.nextDouble());
  }

  /** Runs {@code task} on the scheduler; dropped once the scheduler stopped. */
  void execute(Runnable task) {
    execute(scheduler, subject, task);
  }

  /** Runs {@code task} on the scheduler under the monitor. */
  void executeLocked(Runnable task) {
    execute(() -> locked(task));
  }

  private void locked(Runnable task) {
    synchronized (monitor) {
      task.run();
    }
  }

  private static void execute(Scheduler scheduler, String subject, Runnable task) {
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

  boolean callInFlight() {
    return caller.inFlight();
  }

  boolean writeInFlight() {
    return caller.writeInFlight();
  }

  void read(CallPurpose purpose, Handler<LockRead> handler) {
    deferIfSpent(caller.read(purpose, epoch, inThisPhase(handler, CallAnswer.Read::new)));
  }

  /** Writes {@code writing} with {@code op}; a release writes no record of its own (null). */
  void write(
      LockCall kind,
      @Nullable LeaderRecord writing,
      CallPurpose purpose,
      Supplier<CompletionStage<LockWrite>> op,
      Handler<LockWrite> handler) {
    deferIfSpent(
        caller.write(
            kind, writing, purpose, epoch, op, inThisPhase(handler, CallAnswer.Write::new)));
  }

  private void deferIfSpent(long wait) {
    if (wait > 0) {
      scheduleStep(wait);
    }
  }

  private <T> LockCaller.Completion<T> inThisPhase(
      Handler<T> handler, Function<T, CallAnswer> answer) {
    return (call, result, start) -> {
      if (finished) {
        return;
      }
      if (call.epoch() == epoch) {
        handler.handle(result, start);
      } else {
        policy().answeredEarlierPhase(call, answer.apply(result));
      }
    };
  }

  // ---------------------------------------------------------------- shared threads

  void releaseShared() {
    if (shared != null) {
      shared.release();
    }
  }

  void awaitSharedThreadsStopped(long millis) {
    if (shared != null) {
      shared.awaitStopped(millis);
    }
  }
}
