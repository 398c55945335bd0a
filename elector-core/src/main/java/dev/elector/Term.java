package dev.elector;

import dev.elector.time.MonotonicClock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One leadership term: from the write that won the lock until the elector steps down.
 *
 * <p>Work done for a term should stop when the term ends: check {@link #isActive()} (it turns false
 * the instant the elector steps down, and also the instant the term's renewal deadline passes, even
 * if the elector's own thread has not run yet), or react to {@link #whenEnded()}.
 *
 * <p>The {@linkplain #fencingToken() fencing token} increases strictly from one term to the next on
 * the same lock, as long as the lock's record is not reset by an outside writer while no running
 * candidate remembers a higher token. Passing it to the systems the leader writes to lets them
 * refuse a stale leader; Elector itself cannot enforce that on systems it does not control.
 */
public final class Term {
  private final String identity;
  private final String lock;
  private final long fencingToken;
  private final Instant startedAt;
  private final Executor completionExecutor;
  private final MonotonicClock clock;
  private final CompletableFuture<TermEnd> ended = new CompletableFuture<>();
  private volatile @Nullable TermEnd endReason;
  private volatile long validUntilNanos;

  Term(
      String identity,
      String lock,
      long fencingToken,
      Instant startedAt,
      Executor completion,
      MonotonicClock clock,
      long validUntilNanos) {
    this.identity = identity;
    this.lock = lock;
    this.fencingToken = fencingToken;
    this.startedAt = startedAt;
    this.completionExecutor = completion;
    this.clock = clock;
    this.validUntilNanos = validUntilNanos;
  }

  /** The leader's identity. */
  public String identity() {
    return identity;
  }

  /** The lock's description. */
  public String lock() {
    return lock;
  }

  /** A number that increases strictly across terms of the same lock; see the class comment. */
  public long fencingToken() {
    return fencingToken;
  }

  /** Wall-clock time the term began, for display only. */
  public Instant startedAt() {
    return startedAt;
  }

  /**
   * True until the elector steps down, or until the term's renewal deadline passes, whichever comes
   * first; turns false before any stop signal is delivered. The deadline is renewDeadline after the
   * start of the last successful write, on the elector's monotonic clock: the instant at which the
   * elector steps down unless a renewal succeeded. Checking it here too means that a process
   * resuming from a pause (a long GC, SIGSTOP) sees {@code false} at once, before the elector's
   * thread has had a chance to run.
   */
  public boolean isActive() {
    return endReason == null && clock.nanos() - validUntilNanos < 0;
  }

  /**
   * The instant, on the elector's monotonic clock ({@code ElectorConfig.clock()}), at which this
   * term stops being active unless a renewal moves it on; for metrics and overlap checks.
   */
  public long activeUntilNanos() {
    return validUntilNanos;
  }

  /**
   * Why the term ended, or empty until the elector has stepped down (which, for a process that was
   * paused past its deadline, happens after {@link #isActive()} already turned false).
   */
  public Optional<TermEnd> endReason() {
    return Optional.ofNullable(endReason);
  }

  void extend(long validUntil) {
    validUntilNanos = validUntil;
  }

  /**
   * Completes with the reason when the term ends. Dependent actions run on the elector's callback
   * executor, never on the elector's own threads.
   */
  public CompletionStage<TermEnd> whenEnded() {
    return ended.minimalCompletionStage();
  }

  void end(TermEnd reason) {
    endReason = reason;
    try {
      completionExecutor.execute(() -> ended.complete(reason));
    } catch (RejectedExecutionException shutDown) {
      ended.complete(reason);
    }
  }

  @Override
  public String toString() {
    return "Term{"
        + identity
        + " on "
        + lock
        + ", token "
        + fencingToken
        + (isActive() ? ", active" : ", ended " + endReason)
        + '}';
  }
}
