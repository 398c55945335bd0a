package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * When a candidate may take the lock, as pure functions of what it observed and when: no clock,
 * scheduler or lock. A lock may be taken when it is free (released, or never seen to exist), held
 * by this candidate, or has not changed for a lease duration measured on the local monotonic clock
 * from when this candidate first saw its content. The record's own timestamps are never trusted. A
 * lock whose record names a coordinated leader election strategy is never taken, whatever it shows:
 * a controller chooses its holder.
 *
 * <p>A release is free only when it can be its holder's own: a release that replaces a term this
 * candidate saw held must carry that term's token and acquisition time, as a holder's release keeps
 * them ({@link LeaderRecord#released}). Any other release, such as the one client-go's leader
 * writes after its renewals failed, over whatever record its last read returned, may have cleared a
 * term that still runs; it protects that term like any other change, for a lease from when it was
 * seen.
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
        return new Observation(
            found.version(), found.record(), null, previous.seenAt(), previous.guarded());
      }
      return previous;
    }
    if (read instanceof LockRead.Found found) {
      return new Observation(
          found.version(), found.record(), null, now, unprovenRelease(previous, found.record()));
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

  /**
   * Whether {@code record}, seen after {@code previous}, is a release that cannot be shown to be
   * its holder's own. A release that replaces a term this candidate saw held must carry that term's
   * token and acquisition time; one that follows a release it trusted must end the same term; one
   * seen with no term to check it against (a first look, a refused create, a deletion, an
   * unreadable record) must at least keep an acquisition time apart from its release time, as
   * {@link LeaderRecord#released} does and client-go's and fabric8's releases do not.
   */
  static boolean unprovenRelease(@Nullable Observation previous, LeaderRecord record) {
    if (!record.isReleased()) {
      return false;
    }
    LeaderRecord before = previous == null ? null : previous.record();
    if (previous == null || before == null) {
      return !keepsItsAcquisition(record);
    }
    if (before.leaderTransitions() != record.leaderTransitions()) {
      return true; // it ends a term this candidate never saw
    }
    if (before.isReleased()) {
      return previous.guarded();
    }
    return record.acquireTime() == null || !record.acquireTime().equals(before.acquireTime());
  }

  private static boolean keepsItsAcquisition(LeaderRecord release) {
    Instant acquired = release.acquireTime();
    return acquired != null && release.renewTime() != null && !acquired.equals(release.renewTime());
  }

  /** Whether the lock as observed may be written by this candidate at {@code now}. */
  boolean mayTake(Observation seen, long now) {
    LeaderRecord record = seen.record();
    if (coordinated(record)) {
      return false;
    }
    if (record != null && (record.isReleased() ? !seen.guarded() : record.isHeldBy(identity))) {
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
