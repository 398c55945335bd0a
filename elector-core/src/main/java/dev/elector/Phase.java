package dev.elector;

import dev.elector.lock.LeaderRecord;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a candidate is in a term's life. Each phase carries only the state that exists in it, so a
 * leader without a term, or a release before close, cannot be represented. A lock call in flight is
 * not a phase: {@link LockCaller} holds it, and an acquire is a follower's write.
 */
sealed interface Phase {

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

  /** Leading {@code term}; {@code validFrom} is the start of the last successful write. */
  record Leading(Term term, Claim claim, long validFrom) implements Phase {
    /**
     * The record this leader last wrote. A leader's claim always holds it: only a conflicting
     * renewal, which ends the term, leaves a claim without one.
     */
    LeaderRecord record() {
      return Objects.requireNonNull(claim.record(), "a leader's claim holds its record");
    }
  }

  /**
   * Stepping down on request and staying a candidate: waiting for the stop callback, then writing a
   * released record over {@code claim}, then following, holding back from the lock until {@code
   * holdOffUntil} on the monotonic clock.
   */
  record SteppingDown(Claim claim, boolean stopCallbackPending, long holdOffUntil)
      implements Phase {}

  /** Closing: waiting for the stop callback and for a write in flight, then release or finish. */
  record Closing(@Nullable Claim claim, boolean stopCallbackPending) implements Phase {}

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
      return new Leading(leading.term(), claim, leading.validFrom());
    }
    if (phase instanceof Closing closing) {
      return new Closing(claim, closing.stopCallbackPending());
    }
    if (phase instanceof SteppingDown steppingDown) {
      return new SteppingDown(
          claim, steppingDown.stopCallbackPending(), steppingDown.holdOffUntil());
    }
    return phase instanceof Releasing ? new Releasing(claim) : phase;
  }

  /** Whether close has begun: closing, releasing or closed. */
  static boolean closing(Phase phase) {
    return phase instanceof Closing || phase instanceof Releasing || phase instanceof Closed;
  }
}
