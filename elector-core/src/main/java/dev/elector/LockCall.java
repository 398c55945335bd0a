package dev.elector;

/** The kinds of call an elector makes to its lock. */
public enum LockCall {
  /** Reads the lock's record. */
  READ,
  /** Creates the lock object, the first acquisition. */
  CREATE,
  /** Updates the record conditionally: an acquisition, a renewal or a release. */
  UPDATE
}
