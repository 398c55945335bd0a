package dev.elector;

import dev.elector.internal.ElectorAccess;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A candidate in a leader election. Once started it takes part until closed: it acquires the lock
 * when it is free or expired, renews it while leading, steps down when it cannot renew within
 * renewDeadline, and goes back to being a candidate by itself after any loss. There is no run loop
 * to write.
 *
 * <pre>{@code
 * LeaderElector elector = LeaderElector.start(ElectorConfig.newBuilder()
 *     .lock(lock)
 *     .callbacks(LeaderCallbacks.of(term -> startWork(term), (term, why) -> stopWork()))
 *     .build());
 * ...
 * elector.close(); // stops leading (callback first), then releases the lock
 * }</pre>
 *
 * <p>Guarantees: {@code onStartedLeading} fires only after this candidate's own write succeeded;
 * {@code onStoppedLeading} fires exactly once for every term that started; a leader stops leading
 * at renewDeadline after its last successful renewal began, before any other candidate can count
 * its lease as expired, provided the clocks of the candidates advance at rates that differ by less
 * than (leaseDuration − renewDeadline) / leaseDuration. Lock calls are bounded in any state: at
 * most {@value ElectorConfig#CALL_BURST} + {@value ElectorConfig#CALLS_PER_RETRY_PERIOD} × T /
 * retryPeriod calls in any interval T.
 *
 * <p>Thread-safe. All methods return quickly except {@link #close()}.
 */
public final class LeaderElector implements AutoCloseable {
  static {
    ElectorAccess.provide(elector -> ((LeaderElector) elector).election);
  }

  private final Election election;

  private LeaderElector(ElectorConfig config) {
    this.election = new Election(config);
  }

  /** Creates an elector and starts its candidacy. */
  public static LeaderElector start(ElectorConfig config) {
    LeaderElector elector = create(config);
    elector.start();
    return elector;
  }

  /** Creates an elector without starting it; call {@link #start()}. */
  public static LeaderElector create(ElectorConfig config) {
    Objects.requireNonNull(config, "config");
    return new LeaderElector(config);
  }

  /**
   * Starts the candidacy.
   *
   * @throws IllegalStateException if already started or closed
   */
  public void start() {
    election.start();
  }

  /** This candidate's identity. */
  public String identity() {
    return election.identity();
  }

  /** The lock's description. */
  public String describe() {
    return election.describe();
  }

  /** Whether this candidate leads now. */
  public boolean isLeader() {
    return election.currentTerm().isPresent();
  }

  /** The current term, while leading. */
  public Optional<Term> currentTerm() {
    return election.currentTerm();
  }

  /** The holder this candidate last saw in the lock (possibly itself), if any. */
  public Optional<String> observedLeader() {
    return election.observedLeader();
  }

  /**
   * A snapshot of what this elector is doing, of its health and of its counters: {@link
   * ElectorStats#healthy()} is the verdict for a liveness probe and {@link ElectorStats#status()}
   * the line to show with it, and both agree with {@link ElectorStats#leading()}.
   */
  public ElectorStats stats() {
    return election.stats();
  }

  /**
   * Steps down and stays a candidate: if this candidate leads, the term ends (onStoppedLeading runs
   * with {@link TermEnd#STEPPED_DOWN}), then the lock is released so that a watching follower takes
   * over at once, and this candidate does not try to take the lock again for {@code holdOff}. The
   * fencing token still only grows, and terms never overlap. Returns quickly.
   *
   * @param holdOff how long to hold back from the lock after stepping down; zero competes again at
   *     once (and may lead again if no other candidate is faster)
   * @return true if a term was ended; false if this candidate was not leading, not started, or
   *     closing, in which case nothing changes
   * @throws IllegalArgumentException if {@code holdOff} is negative
   */
  public boolean stepDown(Duration holdOff) {
    Objects.requireNonNull(holdOff, "holdOff");
    if (holdOff.isNegative()) {
      throw new IllegalArgumentException(
          "holdOff is " + holdOff + "; use zero or a positive duration, such as the leaseDuration");
    }
    return election.requestStepDown(saturatedNanos(holdOff));
  }

  /**
   * Steps down and holds back from the lock for one leaseDuration; see {@link #stepDown(Duration)}.
   */
  public boolean stepDown() {
    return stepDown(election.leaseDuration());
  }

  /**
   * Keeps this candidate from taking the lock for {@code holdOff}, replacing any earlier hold
   * (including a step-down's); {@link Duration#ZERO} lets it compete at once. A leader keeps its
   * term (end it with {@link #stepDown(Duration)}); a held-off follower still watches the lock and
   * reports its leader. May be called before {@link #start()}, so that a candidate starts held
   * back.
   *
   * @throws IllegalArgumentException if {@code holdOff} is negative
   */
  public void holdOff(Duration holdOff) {
    Objects.requireNonNull(holdOff, "holdOff");
    if (holdOff.isNegative()) {
      throw new IllegalArgumentException(
          "holdOff is " + holdOff + "; use zero to compete at once, or a positive duration");
    }
    election.holdOff(saturatedNanos(holdOff));
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 4; // centuries: far beyond any lease, and safe to add to a clock
    }
  }

  /**
   * Begins closing: stops leading (the term ends and onStoppedLeading runs), then releases the lock
   * if configured, within closeTimeout. Idempotent.
   *
   * @return a stage that completes when the elector is closed
   */
  public CompletableFuture<Void> closeAsync() {
    return election.closeAsync();
  }

  /**
   * Closes and waits until done: when this returns, onStoppedLeading has been delivered (unless it
   * ran past closeTimeout), the lock is released if configured, and threads of the shared default
   * pool have stopped if this was their last user. Called from inside one of this elector's
   * callbacks, it begins closing and returns without waiting. Idempotent.
   */
  @Override
  public void close() {
    CompletableFuture<Void> closing = election.closeAsync();
    if (election.closingFromOwnCallback()) {
      return;
    }
    long waitMillis = closeWaitMillis();
    try {
      closing.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // close never fails; a timeout was already logged by the elector
    }
    election.awaitSharedThreadsStopped(5_000);
  }

  private long closeWaitMillis() {
    return election.closeTimeoutMillis() + 1_000;
  }

  @Override
  public String toString() {
    return "LeaderElector{"
        + election.describe()
        + " as "
        + election.identity()
        + (isLeader() ? ", leading" : "")
        + '}';
  }
}
