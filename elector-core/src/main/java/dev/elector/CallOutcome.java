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
  /**
   * The backend refused the call for a reason only a change of configuration fixes: a missing
   * permission, bad credentials, a namespace that does not exist, an object the server rejects
   * ({@link dev.elector.lock.LockFailure.Kind#isConfigurationProblem()}). Counted apart from {@link
   * #FAILED} so that a dashboard or alert tells "fix the RBAC" from "the server is down".
   */
  REFUSED,
  /** The backend reported a failure that may pass by itself: unavailable, unexpected. */
  FAILED,
  /** No answer within the call timeout. */
  TIMEOUT
}
