package dev.elector.lock;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The lock an election contends for: a single record with an opaque version, read and written with
 * optimistic concurrency. This is the whole SPI a backend implements.
 *
 * <p>Every call returns at once with a stage that completes with an outcome; expected events
 * (absent, conflict, forbidden, unavailable) are outcome values ({@link LockFailure} among them),
 * never exceptional completions. A stage that completes exceptionally is treated as {@link
 * LockFailure.Kind#UNEXPECTED}. The elector makes at most one call at a time per lock.
 *
 * <p><b>One deadline per call.</b> Each call carries its {@code timeout}: how long the elector
 * waits for the answer, counted from the call. A lock that does I/O bounds the call's whole work by
 * it (waiting for a thread, sending, reading the answer): an answer after the timeout is never
 * used. A lock with a bound of its own (a request timeout set on its builder) uses the shorter of
 * the two.
 *
 * <p><b>Cancellation</b> is how the elector tells a lock that it gave up on a call: when a call
 * exceeds its timeout, or is still in flight when close() stops waiting for it, the elector cancels
 * the call's stage ({@code toCompletableFuture().cancel(false)}) and ignores whatever the call does
 * after. A lock should then stop the call's I/O: not send a request that has not left yet, abort
 * one in flight, and free any thread it holds. The cancellation arrives on the elector's thread, so
 * a lock reacts without blocking. A request that has already reached the server may have taken
 * effect all the same; the elector assumes nothing either way.
 *
 * <p>A lock that also implements {@code dev.elector.ElectorListener} hears its elector's events,
 * after the listener the elector was configured with.
 */
public interface LeaderLock {

  /**
   * Reads the current record and its version: {@link LockRead.Found}, {@link LockRead.Absent},
   * {@link LockRead.Malformed}, or a {@link LockFailure}.
   *
   * @param timeout how long the elector waits for the answer; positive
   */
  CompletionStage<LockRead> read(Duration timeout);

  /**
   * Creates the lock holding {@code record}: {@link LockWrite.Written}, {@link LockWrite.Conflict}
   * if it already exists, or a {@link LockFailure}.
   *
   * @param timeout how long the elector waits for the answer; positive
   */
  CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout);

  /**
   * Replaces the record, only if the lock is still at {@code expectedVersion}; otherwise completes
   * with {@link LockWrite.Conflict}. A lock that no longer exists is also a conflict.
   *
   * @param timeout how long the elector waits for the answer; positive
   */
  CompletionStage<LockWrite> update(String expectedVersion, LeaderRecord record, Duration timeout);

  /**
   * Starts delivering each later state of the lock ({@link LockRead.Found}, {@link
   * LockRead.Malformed} or {@link LockRead.Absent}) to {@code listener}, on any thread, until the
   * returned handle is closed; a following elector then sees a release at once and reads only to
   * resynchronise. A watch that breaks may deliver a {@link LockFailure}, and the elector polls
   * until the next state arrives; the lock reconnects by itself (with back-off) until closed.
   *
   * <p>The default, for a lock that cannot push its changes, returns empty: the elector polls.
   *
   * @return the handle whose {@code close()} stops the watch (idempotent), or empty if this lock
   *     cannot be watched
   */
  default Optional<Closeable> watch(Consumer<LockRead> listener) {
    return Optional.empty();
  }

  /** The identity this candidate writes as holder. Unique per process; never blank. */
  String identity();

  /** A short description for logs, such as {@code Lease ns/name}. */
  String describe();
}
