package dev.elector;

/** What a lock call was for, as {@link ElectorStats#latency()} breaks call latency down. */
public enum CallPurpose {
  /** A read by a candidate, or while releasing. */
  READ,
  /** A create or update by a candidate trying to take the lock. */
  ACQUIRE,
  /** An update by the leader renewing its lease. */
  RENEW,
  /** An update on close giving the lock up. */
  RELEASE
}
