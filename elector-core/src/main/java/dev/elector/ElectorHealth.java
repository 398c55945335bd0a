package dev.elector;

/**
 * The result of {@link LeaderElector#health()}.
 *
 * @param healthy false when the elector leads but has not renewed for longer than leaseDuration
 *     plus the health tolerance (it should have stepped down: its threads may be stalled), when its
 *     readiness gate failed, or once close has begun (the detail says "closing", then "closed")
 * @param detail one line on what the elector is doing, suitable for a health endpoint; a candidate
 *     whose calls keep failing names the failures in a row and the last one, so a missing
 *     permission shows there with the rule to add (it stays healthy: restarting the process would
 *     not grant the permission)
 */
public record ElectorHealth(boolean healthy, String detail) {}
