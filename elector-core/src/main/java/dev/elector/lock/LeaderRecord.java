package dev.elector.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The content of a lock: who holds it, for how long, and how many times it changed hands. The
 * fields mirror client-go's leader election record, so Java and Go candidates can share a lock.
 *
 * <p>Records read from a backend are taken as found: a duration may be missing or non-positive and
 * times may be missing. The elector judges such records safely (see {@link #durationProblem()}).
 *
 * @param holderIdentity the current holder; empty when the lock was released (never null)
 * @param leaseDuration how long the holder's lease lasts after each renewal, as written by the
 *     holder; null when the record has none
 * @param acquireTime wall-clock time the holder acquired the lock; informational, may be null
 * @param renewTime wall-clock time of the last renewal; informational, may be null
 * @param leaderTransitions how many times leadership changed; Elector writes a strictly larger
 *     value for every new term and uses it as the term's fencing token
 */
public record LeaderRecord(
    String holderIdentity,
    @Nullable Duration leaseDuration,
    @Nullable Instant acquireTime,
    @Nullable Instant renewTime,
    long leaderTransitions) {

  /** A null holder becomes the empty string, which means no holder. */
  public LeaderRecord {
    holderIdentity = holderIdentity == null ? "" : holderIdentity;
  }

  /** True when nobody holds the lock: the holder identity is empty or blank. */
  public boolean isReleased() {
    return holderIdentity.isBlank();
  }

  /** True when {@code identity} is the holder. */
  public boolean isHeldBy(String identity) {
    return !isReleased() && holderIdentity.equals(identity);
  }

  /**
   * Describes what is wrong with the lease duration, if anything: missing or not positive. Such a
   * record is judged with the reader's own lease duration instead.
   */
  public Optional<String> durationProblem() {
    if (leaseDuration == null) {
      return Optional.of("the record has no lease duration");
    }
    if (leaseDuration.isZero() || leaseDuration.isNegative()) {
      return Optional.of("the record's lease duration " + leaseDuration + " is not positive");
    }
    return Optional.empty();
  }

  /** Returns a copy with a new renew time. */
  public LeaderRecord withRenewTime(Instant time) {
    return new LeaderRecord(holderIdentity, leaseDuration, acquireTime, time, leaderTransitions);
  }

  /** Returns the record a holder writes to give the lock up: no holder, a one-second lease. */
  public LeaderRecord released(Instant now) {
    return new LeaderRecord("", Duration.ofSeconds(1), now, now, leaderTransitions);
  }

  @Override
  public String toString() {
    return "LeaderRecord{holder="
        + (isReleased() ? "<none>" : holderIdentity)
        + ", leaseDuration="
        + leaseDuration
        + ", acquireTime="
        + acquireTime
        + ", renewTime="
        + renewTime
        + ", transitions="
        + leaderTransitions
        + '}';
  }

  static String requireVersion(String version) {
    Objects.requireNonNull(version, "version");
    if (version.isEmpty()) {
      throw new IllegalArgumentException("version must not be empty");
    }
    return version;
  }
}
