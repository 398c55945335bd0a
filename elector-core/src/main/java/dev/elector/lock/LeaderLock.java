package dev.elector.lock;

import java.util.concurrent.CompletionStage;

/**
 * The lock an election contends for: a single record with an opaque version, read and written with
 * optimistic concurrency. This is the whole SPI a backend implements.
 *
 * <p>Every method returns at once with a stage that completes with an outcome; expected events
 * (absent, conflict, forbidden, unavailable) are outcome values, never exceptional completions. A
 * stage that completes exceptionally is treated as {@link LockFailure.Kind#UNEXPECTED}. The elector
 * makes at most one call at a time per lock, applies its own timeout to each call and ignores
 * results that arrive late; implementations should still bound their own I/O so abandoned calls
 * release their resources.
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

  /** The identity this candidate writes as holder. Unique per process; never blank. */
  String identity();

  /** A short description for logs, such as {@code Lease ns/name}. */
  String describe();
}
