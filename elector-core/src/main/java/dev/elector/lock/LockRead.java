package dev.elector.lock;

import java.util.Objects;

/**
 * The outcome of reading a lock: a record, no lock object, an unreadable record, or a {@link
 * LockFailure}.
 */
public sealed interface LockRead
    permits LockRead.Found, LockRead.Malformed, LockRead.Absent, LockFailure {

  /** The lock exists and holds a readable record at {@code version}. */
  record Found(String version, LeaderRecord record) implements LockRead {
    /** Checks that the version and the record are given. */
    public Found {
      LeaderRecord.requireVersion(version);
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * The lock object exists at {@code version} but its record cannot be read, for example garbled
   * JSON. The elector treats it as held by an unknown holder: it is never taken for its own, and it
   * is overwritten only after it has stayed unchanged for a whole lease duration.
   */
  record Malformed(String version, String problem) implements LockRead {
    /** Checks that the version and the problem are given. */
    public Malformed {
      LeaderRecord.requireVersion(version);
      Objects.requireNonNull(problem, "problem");
    }
  }

  /** The lock object does not exist; the next acquisition creates it. */
  record Absent() implements LockRead {}
}
