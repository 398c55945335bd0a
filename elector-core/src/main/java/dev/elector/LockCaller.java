package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Makes the election's lock calls, one at a time: spends the {@link CallBudget}, bounds each call
 * by callTimeout, counts every outcome and hands the result back under the election's monitor with
 * the call it answers. A call the election stops waiting for (timed out, or still in flight when
 * the election finishes) is cancelled, which tells the lock to stop its I/O; a result that arrives
 * all the same is counted as late and dropped. Guarded by the election's monitor.
 */
final class LockCaller {

  /**
   * One call: its sequence number, kind, the election epoch it was issued in, the record written.
   */
  record Call(long seq, LockCall kind, long epoch, @Nullable LeaderRecord writing) {}

  /** Receives a call's result under the election's monitor. */
  @FunctionalInterface
  interface Completion<T> {
    void complete(Call call, T result, long startNanos);
  }

  private final Object monitor;
  private final LeaderLock lock;
  private final Scheduler scheduler;
  private final MonotonicClock clock;
  private final CallBudget budget;
  private final long timeoutNanos;
  private final Duration timeout;
  private final ElectionCounters counters;
  private final Dispatcher dispatcher;
  private final Consumer<Runnable> execute;
  private final String subject;
  private final Logger log;
  private long seq;

  /** The call in flight, or null. */
  private @Nullable Call pending;

  /** The stage of the call in flight, to cancel when the election stops waiting for it. */
  private @Nullable CompletionStage<?> pendingStage;

  /**
   * The last call cancelled: its stage completing with the cancellation is no late result. Written
   * under the monitor, read where the lock completes the stage.
   */
  private volatile long cancelledSeq;

  private @Nullable Cancellable timer;

  LockCaller(
      Object monitor,
      LeaderLock lock,
      Scheduler scheduler,
      MonotonicClock clock,
      CallBudget budget,
      Duration timeout,
      ElectionCounters counters,
      Dispatcher dispatcher,
      Consumer<Runnable> execute,
      String subject,
      Logger log) {
    this.monitor = monitor;
    this.lock = lock;
    this.scheduler = scheduler;
    this.clock = clock;
    this.budget = budget;
    this.timeoutNanos = Timings.nanos(timeout);
    this.timeout = timeout;
    this.counters = counters;
    this.dispatcher = dispatcher;
    this.execute = execute;
    this.subject = subject;
    this.log = log;
  }

  boolean inFlight() {
    return pending != null;
  }

  /** Whether the call in flight is a write (create or update). */
  boolean writeInFlight() {
    return pending != null && pending.kind() != LockCall.READ;
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
    }
  }

  /**
   * Stops waiting for the call in flight, if any, and cancels it: the election no longer takes its
   * result, and the lock may stop its I/O.
   */
  void abandon() {
    cancelTimer();
    Call call = pending;
    CompletionStage<?> stage = pendingStage;
    pending = null;
    pendingStage = null;
    if (call != null && stage != null) {
      cancel(call, stage);
    }
  }

  /**
   * Reads the lock; returns 0, or the nanoseconds to wait if the budget is spent (no call made).
   */
  long read(CallPurpose purpose, long epoch, Completion<LockRead> done) {
    return issue(
        new Call(0, LockCall.READ, epoch, null),
        purpose,
        lock::read,
        LockRead.Failed::new,
        CallAnswer.Read::new,
        done);
  }

  /** Writes {@code writing} (null for a release) with {@code op}; returns as {@link #read} does. */
  long write(
      LockCall kind,
      @Nullable LeaderRecord writing,
      CallPurpose purpose,
      long epoch,
      Supplier<CompletionStage<LockWrite>> op,
      Completion<LockWrite> done) {
    return issue(
        new Call(0, kind, epoch, writing),
        purpose,
        op,
        LockWrite.Failed::new,
        CallAnswer.Write::new,
        done);
  }

  private <T> long issue(
      Call request,
      CallPurpose purpose,
      Supplier<CompletionStage<T>> op,
      Function<LockFailure, T> failure,
      Function<T, CallAnswer> answer,
      Completion<T> done) {
    long now = clock.nanos();
    long wait = budget.tryAcquire(now);
    if (wait > 0) {
      counters.deferred();
      Duration waitDuration = Duration.ofNanos(wait);
      dispatcher.listener(l -> l.onCallDeferred(waitDuration));
      log.debug("{}: call budget spent, waiting {}", subject, waitDuration);
      return wait;
    }
    LockCall kind = request.kind();
    Call call = new Call(++seq, kind, request.epoch(), request.writing());
    pending = call;
    timer =
        scheduler.schedule(
            () ->
                complete(
                    call,
                    purpose,
                    now,
                    failure.apply(
                        LockFailure.of(
                            LockFailure.Kind.TIMEOUT,
                            kind + " took longer than callTimeout " + timeout)),
                    true,
                    answer,
                    done),
            timeoutNanos);
    CompletionStage<T> stage;
    try {
      stage = Objects.requireNonNull(op.get(), "the lock returned a null stage");
    } catch (RuntimeException e) {
      stage = CompletableFuture.completedFuture(failure.apply(unexpected(e)));
    }
    pendingStage = stage;
    stage.whenComplete(
        (value, error) -> {
          if (error instanceof CancellationException && call.seq() == cancelledSeq) {
            return; // the election's own cancellation: it stopped waiting before
          }
          T result =
              error != null
                  ? failure.apply(unexpected(error))
                  : value == null
                      ? failure.apply(
                          LockFailure.of(
                              LockFailure.Kind.UNEXPECTED,
                              "the lock completed " + kind + " with null"))
                      : value;
          execute.accept(() -> complete(call, purpose, now, result, false, answer, done));
        });
    return 0;
  }

  private <T> void complete(
      Call call,
      CallPurpose purpose,
      long start,
      T result,
      boolean timedOut,
      Function<T, CallAnswer> answer,
      Completion<T> done) {
    synchronized (monitor) {
      if (pending == null || pending.seq() != call.seq()) {
        if (!timedOut) {
          counters.lateResult();
        }
        return;
      }
      CompletionStage<?> stage = pendingStage;
      pending = null;
      pendingStage = null;
      cancelTimer();
      if (timedOut && stage != null) {
        cancel(call, stage);
      }
      long now = clock.nanos();
      CallOutcome outcome = answer.apply(result).outcome(timedOut);
      counters.call(call.kind(), outcome, purpose, now - start);
      Duration latency = Duration.ofNanos(now - start);
      dispatcher.listener(l -> l.onLockCall(call.kind(), outcome, latency));
      done.complete(call, result, start);
    }
  }

  /**
   * Cancels {@code stage}, the stage of {@code call}, so the lock learns that nobody waits for it.
   * A stage that cannot be cancelled (a minimal stage, say) completes in its own time, as a late
   * result.
   */
  private void cancel(Call call, CompletionStage<?> stage) {
    cancelledSeq = call.seq();
    try {
      stage.toCompletableFuture().cancel(false);
    } catch (UnsupportedOperationException e) {
      log.debug("{}: the stage of {} cannot be cancelled", subject, call.kind());
    }
  }

  private static LockFailure unexpected(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return new LockFailure(LockFailure.Kind.UNEXPECTED, String.valueOf(cause), cause);
  }
}
