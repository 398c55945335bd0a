package dev.elector;

/** Why a leadership term ended. */
public enum TermEnd {
  /**
   * The leader could not renew within {@code renewDeadline} (the lock was unreachable, slow or
   * failing) and stepped down before its lease could expire for anyone else.
   */
  RENEW_DEADLINE_EXCEEDED,
  /** Someone else wrote the lock: another holder, or an outside writer. */
  LOST_TO_ANOTHER_HOLDER,
  /** The lock object was deleted. */
  LOCK_DELETED,
  /** The elector was closed. */
  CLOSED
}
