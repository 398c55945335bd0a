package dev.elector;

/** How a lock call ended. */
public enum CallOutcome {
  /** Read a record, or the write took effect. */
  OK,
  /** Read found no lock object. */
  ABSENT,
  /** Read found a record that cannot be parsed. */
  MALFORMED,
  /** Write lost a race or was based on a stale version. Expected under contention. */
  CONFLICT,
  /** The backend reported a failure. */
  FAILED,
  /** No answer within the call timeout. */
  TIMEOUT
}
