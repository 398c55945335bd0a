package dev.elector;

/**
 * What a lock call was for: the key of {@link ElectorStats#calls()} and {@link
 * ElectorStats#latency()}, and of the calls a {@link ElectorListener} hears.
 */
public enum LockCall {
  /** A read: a follower looking at the lock, a check after a conflict, or a read before release. */
  READ,
  /** A create or update by a candidate taking the lock. */
  ACQUIRE,
  /** An update by the leader renewing its lease. */
  RENEW,
  /** An update giving the lock up, on close or after stepping down. */
  RELEASE
}
