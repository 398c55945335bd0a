package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a candidate is in a term's life. Each phase carries only the state that exists in it, so a
 * leader without a term, or a release before close, cannot be represented. A lock call in flight is
 * not a phase: {@link State#calls()} holds it, and an acquisition is a follower's write.
 */
public sealed interface Phase {

  /** No stop callback awaited: fencing tokens are never negative. */
  long NO_STOP = -1;

  /**
   * A version of the lock this candidate wrote, which may still name it, so that close can release
   * it. The record is null once a conflicting renewal showed it was overwritten; close then tries
   * with the last record observed, and the conditional write decides.
   */
  record Claim(String version, @Nullable LeaderRecord record) {}

  /** Started, waiting for the readiness gate; {@code failure} is set once the gate failed. */
  record AwaitingGate(@Nullable String failure) implements Phase {}

  /** Taking part without leading; {@code claim} is left from an earlier term, or null. */
  record Following(@Nullable Claim claim) implements Phase {}

  /**
   * Leading the term with fencing token {@code token}, begun at {@code startedAt} (wall clock, for
   * display); {@code validFrom} is the start of the last successful write (monotonic); {@code
   * conflicted} once a renewal conflicted and no read has yet shown whose the lock is.
   */
  record Leading(long token, Instant startedAt, Claim claim, long validFrom, boolean conflicted)
      implements Phase {

    /** Leading, with no conflict to check. */
    public Leading(long token, Instant startedAt, Claim claim, long validFrom) {
      this(token, startedAt, claim, validFrom, false);
    }

    /**
     * The record this leader last wrote. A leader's claim always holds it: only a conflicting
     * renewal, which ends the term, leaves a claim without one.
     */
    public LeaderRecord record() {
      return Objects.requireNonNull(claim.record(), "a leader's claim holds its record");
    }
  }

  /**
   * Stepping down on request and staying a candidate: waiting for the stop callback of the term
   * {@code awaitingStopOf} ({@link #NO_STOP} once it returned), then writing a released record over
   * {@code claim}, then following, holding back until {@code holdOffUntil} (monotonic).
   */
  record SteppingDown(Claim claim, long awaitingStopOf, long holdOffUntil) implements Phase {}

  /**
   * Closing: waiting for the stop callback of {@code awaitingStopOf} (or {@link #NO_STOP}) and for
   * a write in flight, then release or finish.
   */
  record Closing(@Nullable Claim claim, long awaitingStopOf) implements Phase {}

  /** Closing by writing a released record over {@code claim}, until it is written or not ours. */
  record Releasing(Claim claim) implements Phase {}

  /** Closed: nothing runs any more. */
  record Closed() implements Phase {}

  /** The phase's claim, or null if it has none. */
  static @Nullable Claim claimOf(Phase phase) {
    if (phase instanceof Following following) {
      return following.claim();
    }
    if (phase instanceof Leading leading) {
      return leading.claim();
    }
    if (phase instanceof Closing closing) {
      return closing.claim();
    }
    if (phase instanceof SteppingDown steppingDown) {
      return steppingDown.claim();
    }
    return phase instanceof Releasing releasing ? releasing.claim() : null;
  }

  /** The same phase holding {@code claim}; phases without a claim are returned unchanged. */
  static Phase withClaim(Phase phase, Claim claim) {
    if (phase instanceof Following) {
      return new Following(claim);
    }
    if (phase instanceof Leading leading) {
      return new Leading(
          leading.token(), leading.startedAt(), claim, leading.validFrom(), leading.conflicted());
    }
    if (phase instanceof Closing closing) {
      return new Closing(claim, closing.awaitingStopOf());
    }
    if (phase instanceof SteppingDown steppingDown) {
      return new SteppingDown(claim, steppingDown.awaitingStopOf(), steppingDown.holdOffUntil());
    }
    return phase instanceof Releasing ? new Releasing(claim) : phase;
  }

  /** Whether close has begun: closing, releasing or closed. */
  static boolean closing(Phase phase) {
    return phase instanceof Closing || phase instanceof Releasing || phase instanceof Closed;
  }
}
