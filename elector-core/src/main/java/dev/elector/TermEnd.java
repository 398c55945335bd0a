package dev.elector;

/** Why a leadership term ended. */
public enum TermEnd {
  /**
   * The leader could not renew within {@code renewDeadline} (the lock was unreachable, slow or
   * failing) and stepped down before its lease could expire for anyone else.
   */
  RENEW_DEADLINE_EXCEEDED,
  /**
   * Someone else wrote or deleted the lock (a renewal conflicted, or a read showed another holder):
   * another candidate or an outside writer.
   */
  LOCK_LOST,
  /** The elector was closed. */
  CLOSED,
  /**
   * The leader stepped down on request ({@link LeaderElector#stepDown}): it released the lock and
   * stays a candidate, holding back from the lock for the requested time.
   */
  STEPPED_DOWN
}
