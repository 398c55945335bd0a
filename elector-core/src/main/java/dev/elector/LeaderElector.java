package dev.elector;

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
    return new LeaderElector(Objects.requireNonNull(config, "config"));
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

  /** Health for a liveness probe; see {@link ElectorHealth}. */
  public ElectorHealth health() {
    return election.health();
  }

  /** A snapshot of the counters. */
  public ElectorStats stats() {
    return election.stats();
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
