package dev.elector;

import dev.elector.internal.candidate.Observation;
import dev.elector.internal.candidate.Phase;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The health verdict and status line of {@link ElectorStats}, as a pure function of the election's
 * state.
 */
final class Health {
  /** Whether a liveness probe should pass, and one line on what the elector is doing. */
  record Report(boolean healthy, String status) {}

  private final String subject;
  private final Timings timings;
  private final Duration leaseDuration;
  private final Duration tolerance;

  Health(String subject, Timings timings, Duration leaseDuration, Duration tolerance) {
    this.subject = subject;
    this.timings = timings;
    this.leaseDuration = leaseDuration;
    this.tolerance = tolerance;
  }

  /**
   * The health at {@code now}. A leader is unhealthy once its last renewal is older than
   * leaseDuration + healthTolerance (its threads are likely stalled); a follower is healthy even
   * while its calls fail, and says so; a failed gate, closing and closed are unhealthy.
   *
   * @param seen the last observation, or null before the first
   * @param watch how a follower learns of changes, appended to its detail
   */
  Report report(
      Phase phase,
      long now,
      @Nullable Observation seen,
      int failures,
      @Nullable LockFailure lastFailure,
      String watch) {
    if (phase instanceof Phase.AwaitingGate gate) {
      return gate.failure() != null
          ? new Report(false, subject + ": readiness gate failed: " + gate.failure())
          : new Report(true, subject + ": waiting for the readiness gate");
    }
    if (phase instanceof Phase.Leading leading) {
      long since = now - leading.validFrom();
      if (since > timings.lease() + timings.healthTolerance()) {
        return new Report(
            false,
            subject
                + ": leading but not renewed for "
                + Duration.ofNanos(since)
                + ", past leaseDuration "
                + leaseDuration
                + " + tolerance "
                + tolerance
                + "; the elector's threads may be stalled");
      }
      return new Report(true, subject + ": leading, renewed " + Duration.ofNanos(since) + " ago");
    }
    if (phase instanceof Phase.Following) {
      return new Report(
          true,
          subject
              + ": following "
              + (seen == null ? "(lock not read yet)" : seen.describeHolder())
              + coordination(seen)
              + (failures > 0
                  ? ", " + failures + " failures in a row, the last: " + lastFailure
                  : "")
              + watch);
    }
    if (phase instanceof Phase.SteppingDown) {
      return new Report(
          true, subject + ": stepped down on request, releasing the lock; still a candidate");
    }
    if (phase instanceof Phase.Closed) {
      return new Report(false, subject + ": closed");
    }
    return new Report(false, subject + ": closing");
  }

  /** Why a follower of a lock under coordinated leader election never takes it, or nothing. */
  private static String coordination(@Nullable Observation seen) {
    LeaderRecord record = seen == null ? null : seen.record();
    String strategy = record == null ? null : record.strategy();
    return strategy == null
        ? ""
        : ", chosen by coordinated leader election (strategy "
            + strategy
            + "): this candidate never writes the lock";
  }
}
