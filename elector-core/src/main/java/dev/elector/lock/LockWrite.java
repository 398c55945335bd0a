package dev.elector.lock;

import java.util.Objects;

/**
 * The outcome of creating or updating a lock: written, a conflict, or a {@link LockFailure}
 * (whether a failed write took effect is unknown).
 */
public sealed interface LockWrite permits LockWrite.Written, LockWrite.Conflict, LockFailure {

  /** The write took effect; the lock is now at {@code version}. */
  record Written(String version) implements LockWrite {
    /** Checks that the version is given. */
    public Written {
      LeaderRecord.requireVersion(version);
    }
  }

  /**
   * The lock changed since the version the write was based on, or already existed on create. An
   * expected outcome of contention, not an error.
   */
  record Conflict(String detail) implements LockWrite {
    /** Checks that the detail is given. */
    public Conflict {
      Objects.requireNonNull(detail, "detail");
    }
  }
}
