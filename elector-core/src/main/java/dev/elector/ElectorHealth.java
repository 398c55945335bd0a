package dev.elector;

/**
 * The result of {@link LeaderElector#health()}.
 *
 * @param healthy false when the elector leads but has not renewed for longer than leaseDuration plus
 *     the health tolerance (it should have stepped down: its threads may be stalled), when its
 *     readiness gate failed, or when it is closed
 * @param detail one line on what the elector is doing, suitable for a health endpoint
 */
public record ElectorHealth(boolean healthy, String detail) {}
