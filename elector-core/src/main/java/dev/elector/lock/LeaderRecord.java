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
 * @param preferredHolder the identity an operator asked to lead next (a request to move leadership,
 *     which Kubernetes locks keep in the annotation {@value #PREFERRED_HOLDER}), or null;
 *     client-go's record has no such field, and its candidates ignore it
 * @param strategy the coordinated leader election strategy the lock names (a Kubernetes Lease's
 *     {@code spec.strategy}, such as {@code OldestEmulationVersion}), or null. A lock that names
 *     one has its holder chosen by a controller, not by contention: Elector's candidates follow it,
 *     never take it over and never write it, however long it looks unrenewed
 */
public record LeaderRecord(
    String holderIdentity,
    @Nullable Duration leaseDuration,
    @Nullable Instant acquireTime,
    @Nullable Instant renewTime,
    long leaderTransitions,
    @Nullable String preferredHolder,
    @Nullable String strategy) {

  /** The annotation of a Kubernetes lock object that asks leadership to move to an identity. */
  public static final String PREFERRED_HOLDER = "elector.dev/preferred-holder";

  /**
   * A null holder becomes the empty string, which means no holder; a blank preferred holder becomes
   * null, which means no request; a blank strategy becomes null, which means no coordination.
   */
  public LeaderRecord {
    holderIdentity = holderIdentity == null ? "" : holderIdentity;
    preferredHolder =
        preferredHolder == null || preferredHolder.isBlank() ? null : preferredHolder.strip();
    strategy = strategy == null || strategy.isBlank() ? null : strategy.strip();
  }

  /** A record of a lock that no coordinated leader election controls. */
  public LeaderRecord(
      String holderIdentity,
      @Nullable Duration leaseDuration,
      @Nullable Instant acquireTime,
      @Nullable Instant renewTime,
      long leaderTransitions,
      @Nullable String preferredHolder) {
    this(
        holderIdentity,
        leaseDuration,
        acquireTime,
        renewTime,
        leaderTransitions,
        preferredHolder,
        null);
  }

  /** A record without a request to move leadership. */
  public LeaderRecord(
      String holderIdentity,
      @Nullable Duration leaseDuration,
      @Nullable Instant acquireTime,
      @Nullable Instant renewTime,
      long leaderTransitions) {
    this(holderIdentity, leaseDuration, acquireTime, renewTime, leaderTransitions, null, null);
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

  /** True when the record asks leadership to move to an identity other than {@code identity}. */
  public boolean prefersOtherThan(String identity) {
    return preferredHolder != null && !preferredHolder.equals(identity);
  }

  /** Returns a copy with a new renew time. */
  public LeaderRecord withRenewTime(Instant time) {
    return new LeaderRecord(
        holderIdentity,
        leaseDuration,
        acquireTime,
        time,
        leaderTransitions,
        preferredHolder,
        strategy);
  }

  /** Returns a copy that asks leadership to move to {@code identity}, or asks nothing if null. */
  public LeaderRecord withPreferredHolder(@Nullable String identity) {
    return new LeaderRecord(
        holderIdentity,
        leaseDuration,
        acquireTime,
        renewTime,
        leaderTransitions,
        identity,
        strategy);
  }

  /**
   * Returns the record a holder writes to give the lock up: no holder, a one-second lease, renewed
   * {@code now}; the term's token and acquisition time stay, which shows candidates that saw the
   * term that its holder released it (a release without them may have been written over a live
   * term, and is honoured for a lease). A request to move leadership stays, for the identity it
   * names to take the lock.
   */
  public LeaderRecord released(Instant now) {
    return new LeaderRecord(
        "", Duration.ofSeconds(1), acquireTime, now, leaderTransitions, preferredHolder, strategy);
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
        + (preferredHolder == null ? "" : ", preferredHolder=" + preferredHolder)
        + (strategy == null ? "" : ", strategy=" + strategy)
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
