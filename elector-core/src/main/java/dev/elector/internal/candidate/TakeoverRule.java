package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a candidate may take the lock, as pure functions of what it observed and when: no clock,
 * scheduler or lock. A lock may be taken when it is free (released, or never seen to exist), held
 * by this candidate, or has not changed for a lease duration measured on the local monotonic clock
 * from when this candidate first saw its content. The record's own timestamps are never trusted. A
 * lock whose record names a coordinated leader election strategy is never taken, whatever it shows:
 * a controller chooses its holder.
 */
public final class TakeoverRule {
  private final String identity;
  private final long leaseNanos;

  public TakeoverRule(String identity, long leaseNanos) {
    this.identity = identity;
    this.leaseNanos = leaseNanos;
  }

  long leaseNanos() {
    return leaseNanos;
  }

  /**
   * What a candidate knows after {@code read} at {@code now}, having known {@code previous} (null
   * before its first look). Unchanged content keeps the instant it was first seen; a new version of
   * an equal record is adopted without restarting the clock. {@code read} is never a failure.
   */
  Observation observe(@Nullable Observation previous, LockRead read, long now) {
    if (previous != null && previous.sameContent(read)) {
      if (read instanceof LockRead.Found found) {
        return new Observation(found.version(), found.record(), null, previous.seenAt(), false);
      }
      return previous;
    }
    if (read instanceof LockRead.Found found) {
      return new Observation(found.version(), found.record(), null, now, false);
    }
    if (read instanceof LockRead.Malformed bad) {
      return new Observation(bad.version(), null, bad.problem(), now, false);
    }
    return new Observation(null, null, null, now, previous != null && previous.lockSeen());
  }

  /**
   * What a candidate knows once its create was refused at {@code now}: the lock exists, held by a
   * holder it has not read, for a lease unless a read shows more. An absence read after it is a
   * deletion, and guarded from when it is seen.
   */
  Observation refused(long now) {
    return new Observation(null, null, "a create was refused", now, true);
  }

  /** Whether the lock as observed may be written by this candidate at {@code now}. */
  boolean mayTake(Observation seen, long now) {
    LeaderRecord record = seen.record();
    if (coordinated(record)) {
      return false;
    }
    if (record != null && (record.isReleased() || record.isHeldBy(identity))) {
      return true;
    }
    return now - expiresAt(seen) >= 0;
  }

  /** When the observation stops protecting its holder; Long.MAX_VALUE if never in practice. */
  long expiresAt(Observation seen) {
    if (coordinated(seen.record())) {
      return Long.MAX_VALUE;
    }
    if (seen.absent()) {
      return seen.guarded() ? seen.seenAt() + leaseNanos : seen.seenAt();
    }
    long at = seen.seenAt() + effectiveLease(seen.record());
    return at < seen.seenAt() ? Long.MAX_VALUE : at;
  }

  /**
   * The record's lease duration, but never shorter than ours: a record that names a short lease (an
   * outside writer's, or one without a valid duration) may have replaced a live holder that this
   * candidate never saw, and that holder steps down only within our own timings. A null record (an
   * unreadable one) gets ours.
   */
  long effectiveLease(@Nullable LeaderRecord record) {
    Duration written = record == null ? null : record.leaseDuration();
    if (record == null || record.durationProblem().isPresent() || written == null) {
      return leaseNanos; // a missing duration is a durationProblem too
    }
    return Math.max(leaseNanos, nanos(written));
  }

  /**
   * Whether {@code record} names a coordinated leader election strategy: its holder is chosen by a
   * controller, and no candidate writes it, not even to renew or release its own term.
   */
  static boolean coordinated(@Nullable LeaderRecord record) {
    return record != null && record.strategy() != null;
  }

  /** The fencing token of a new term: one above the highest seen, including the observed one. */
  static long nextToken(long highestSeen, Observation seen) {
    LeaderRecord record = seen.record();
    long observed = record == null ? -1 : record.leaderTransitions();
    return Math.max(highestSeen, observed) + 1;
  }

  /** A duration in nanoseconds, saturating instead of overflowing. */
  public static long nanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException overflow) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
