package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import org.jspecify.annotations.Nullable;

/**
 * Everything a candidate knows and is doing, as one value: its {@link Phase}, its {@link View} of
 * the lock, its follower's streak and watch, and its lock call in flight. Only {@link
 * Candidate#next} makes a new one.
 *
 * @param failures failed calls in a row, which set the back-off; {@code lastFailure} the last
 * @param closeRequested close was asked for: no step-down begins any more
 */
public record State(
    Phase phase,
    View view,
    int failures,
    @Nullable LockFailure lastFailure,
    Watch watch,
    Calls calls,
    boolean createTried,
    boolean closeRequested) {

  /**
   * The lock's watch as the machine sees it.
   *
   * @param current the last observation came from the watch and nothing since made it doubtful
   * @param failure why the watch is interrupted, or null while it works (or there is none)
   * @param events watch events taken in while following: a read answered after one may be older
   */
  public record Watch(boolean current, @Nullable LockFailure failure, long events) {}

  /**
   * The calls.
   *
   * @param seq the number of the last call made
   * @param epoch bumped at every change of term and at close: a call of an earlier epoch answers a
   *     phase that is gone
   * @param inFlight the call in flight, or null
   * @param stepPending a step is scheduled
   * @param unanswered the record of this candidate's last acquisition whose answer did not come
   *     within the call timeout, or null: it may have landed, too late to start a term
   */
  public record Calls(
      long seq,
      long epoch,
      @Nullable InFlight inFlight,
      boolean stepPending,
      Budget budget,
      @Nullable LeaderRecord unanswered) {}

  /**
   * A call in flight.
   *
   * @param start when it was made (monotonic): a write that lands counts from here
   * @param writing the record it writes that names this candidate, or null (a read, a release)
   * @param over the claim a release writes over, or null
   * @param eventsBefore watch events taken in before it was made
   * @param othersBefore {@link View#othersSeen()} before it was made
   */
  public record InFlight(
      long seq,
      Purpose purpose,
      long epoch,
      long start,
      @Nullable LeaderRecord writing,
      Phase.@Nullable Claim over,
      long eventsBefore,
      long othersBefore) {

    /** Whether it writes: a create or an update. */
    public boolean writes() {
      return purpose != Purpose.LOOK
          && purpose != Purpose.READ_FOR_RELEASE
          && purpose != Purpose.VERIFY;
    }
  }
}
