package dev.elector.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The lock an election contends for: a single record with an opaque version, read and written with
 * optimistic concurrency. This is the whole SPI a backend implements.
 *
 * <p>Every method returns at once with a stage that completes with an outcome; expected events
 * (absent, conflict, forbidden, unavailable) are outcome values, never exceptional completions. A
 * stage that completes exceptionally is treated as {@link LockFailure.Kind#UNEXPECTED}. The elector
 * makes at most one call at a time per lock and applies its own timeout to each call (its
 * callTimeout), which it tells the lock once, before its first call, through {@link
 * #useCallTimeout}: a lock that bounds its own I/O takes that bound from the elector, so that one
 * deadline covers each call, from the moment it is made to the end of its I/O.
 *
 * <p>Cancellation is how the elector tells a lock that it gave up on a call: when a call exceeds
 * callTimeout, or is still in flight when close() stops waiting for it, the elector cancels the
 * call's stage ({@code toCompletableFuture().cancel(false)}) and ignores whatever the call does
 * after. A lock should then stop the call's I/O: not send a request that has not left yet, abort
 * one in flight, and free any thread it holds. The cancellation arrives on the elector's thread, so
 * a lock reacts without blocking. A request that has already reached the server may have taken
 * effect all the same; the elector assumes nothing either way. A lock whose stages cannot be
 * cancelled (a minimal stage, for example) is still correct, only its abandoned calls keep their
 * resources until they end by themselves: bound its own I/O too.
 */
public interface LeaderLock {

  /** Reads the current record and its version. */
  CompletionStage<LockRead> read();

  /**
   * Creates the lock holding {@code record}. Completes with {@link LockWrite.Conflict} if it
   * already exists.
   */
  CompletionStage<LockWrite> create(LeaderRecord record);

  /**
   * Replaces the record, only if the lock is still at {@code expectedVersion}; otherwise completes
   * with {@link LockWrite.Conflict}. A lock that no longer exists is also a conflict.
   */
  CompletionStage<LockWrite> update(String expectedVersion, LeaderRecord record);

  /**
   * Tells the lock how long the elector waits for each of its calls (its callTimeout) before it
   * cancels the call. The elector calls it once, when it is created, on the creating thread.
   *
   * <p>A lock with a timeout of its own (a request timeout, say) bounds each call by the same
   * deadline: it derives its timeout from {@code callTimeout}, or, when its timeout was set
   * explicitly and is longer, rejects the combination, since the elector would give up on every
   * call that needs that long. A lock used by several electors is told by each, and bounds its
   * calls by the shortest. The default does nothing: a lock without a timeout of its own relies on
   * the cancellation alone.
   *
   * @param callTimeout the elector's wait for one call; positive
   * @throws IllegalArgumentException if the lock's own timeout is longer than {@code callTimeout};
   *     the message names both and how to reconcile them
   */
  default void useCallTimeout(Duration callTimeout) {}

  /** The identity this candidate writes as holder. Unique per process; never blank. */
  String identity();

  /** A short description for logs, such as {@code Lease ns/name}. */
  String describe();
}
