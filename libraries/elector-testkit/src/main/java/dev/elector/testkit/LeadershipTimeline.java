package dev.elector.testkit;

import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The overlap detector: every candidate reports its terms here on one monotonic timeline, through
 * {@link #listenerFor(String)}, at the instant its elector starts and stops leading, or through
 * {@link #started(String, long, long)} and {@link #ended(String, TermEnd, long)} with explicit
 * instants (for candidates in other processes, whose {@code System.nanoTime()} is comparable on one
 * Linux machine). Checks that no two terms overlap and that fencing tokens increase strictly.
 *
 * <p>A term ends on the timeline when its elector stepped down or when the term's {@linkplain
 * Term#activeUntilNanos() validity deadline} passed, whichever came first: after the deadline
 * {@link Term#isActive()} is false, so a leader that checks it no longer acts, even if its process
 * was paused and its elector steps down only later. The clock given here must be the electors'
 * clock. Thread-safe.
 */
public final class LeadershipTimeline {
  /**
   * One term on the timeline; {@code endNanos} is {@code Long.MAX_VALUE} and {@code reason} is null
   * while it lasts.
   */
  public record Interval(
      String candidate, long token, long startNanos, long endNanos, @Nullable TermEnd reason) {
    /** Whether the term is still going on. */
    public boolean open() {
      return endNanos == Long.MAX_VALUE;
    }
  }

  private final MonotonicClock clock;
  private final List<Interval> intervals = new ArrayList<>();
  private final Map<String, Integer> openByCandidate = new HashMap<>();

  /** An empty timeline whose intervals are timed on {@code clock}. */
  public LeadershipTimeline(MonotonicClock clock) {
    this.clock = clock;
  }

  /** A listener that reports {@code candidate}'s terms to this timeline. */
  public ElectorListener listenerFor(String candidate) {
    return new ElectorListener() {
      @Override
      public void onTermStarted(Term term) {
        started(candidate, term.fencingToken());
      }

      @Override
      public void onTermEnded(Term term, TermEnd reason) {
        long now = clock.nanos();
        ended(candidate, reason, now - term.activeUntilNanos() > 0 ? term.activeUntilNanos() : now);
      }
    };
  }

  /** Records that {@code candidate} started a term with {@code token} now. */
  public void started(String candidate, long token) {
    started(candidate, token, clock.nanos());
  }

  /** Records that {@code candidate} started a term with {@code token} at {@code atNanos}. */
  public synchronized void started(String candidate, long token, long atNanos) {
    if (openByCandidate.containsKey(candidate)) {
      throw new AssertionError(candidate + " started a term while its previous term was open");
    }
    openByCandidate.put(candidate, intervals.size());
    intervals.add(new Interval(candidate, token, atNanos, Long.MAX_VALUE, null));
  }

  /** Records that {@code candidate}'s open term ended now. */
  public void ended(String candidate, TermEnd reason) {
    ended(candidate, reason, clock.nanos());
  }

  /** Records that {@code candidate}'s open term ended at {@code atNanos}. */
  public synchronized void ended(String candidate, TermEnd reason, long atNanos) {
    Integer index = openByCandidate.remove(candidate);
    if (index == null) {
      throw new AssertionError(candidate + " ended a term that never started");
    }
    Interval open = intervals.get(index);
    intervals.set(index, new Interval(candidate, open.token(), open.startNanos(), atNanos, reason));
  }

  /** Every term so far, in order of start. */
  public synchronized List<Interval> terms() {
    return List.copyOf(intervals);
  }

  /** The candidate leading now, if any. */
  public synchronized Optional<String> leaderNow() {
    return intervals.stream().filter(Interval::open).map(Interval::candidate).findFirst();
  }

  /**
   * Fails if two terms overlap (one starts before another has ended) or if a term's fencing token
   * is not larger than every earlier term's.
   */
  public void assertNoOverlap() {
    check(true);
  }

  /**
   * Fails if two terms overlap, without checking tokens: for runs in which an outside writer
   * deletes or garbles the record, which destroys the token history.
   */
  public void assertNoTwoLeaders() {
    check(false);
  }

  private synchronized void check(boolean tokens) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.sort(Comparator.comparingLong(Interval::startNanos));
    for (int i = 1; i < sorted.size(); i++) {
      Interval previous = sorted.get(i - 1);
      Interval next = sorted.get(i);
      if (next.startNanos() < previous.endNanos()) {
        throw new AssertionError(
            "two leaders at once: " + describe(previous) + " overlaps " + describe(next));
      }
      if (tokens && next.token() <= previous.token()) {
        throw new AssertionError(
            "fencing token did not increase: " + describe(previous) + " then " + describe(next));
      }
    }
  }

  /** The longest time two terms overlapped, zero if none did. */
  public synchronized Duration maxOverlap() {
    long worst = 0;
    for (int i = 0; i < intervals.size(); i++) {
      for (int j = i + 1; j < intervals.size(); j++) {
        Interval a = intervals.get(i);
        Interval b = intervals.get(j);
        long end = Math.min(a.endNanos(), b.endNanos());
        long start = Math.max(a.startNanos(), b.startNanos());
        worst = Math.max(worst, end - start);
      }
    }
    return Duration.ofNanos(worst);
  }

  /** Total time without a leader between {@code fromNanos} and {@code toNanos}. */
  public synchronized Duration leaderlessTime(long fromNanos, long toNanos) {
    long led = 0;
    for (Interval interval : intervals) {
      long start = Math.max(fromNanos, interval.startNanos());
      long end = Math.min(toNanos, interval.endNanos());
      if (end > start) {
        led += end - start;
      }
    }
    return Duration.ofNanos(Math.max(0, (toNanos - fromNanos) - led));
  }

  private static String describe(Interval interval) {
    return interval.candidate()
        + " [token "
        + interval.token()
        + ", "
        + Duration.ofNanos(interval.startNanos())
        + " .. "
        + (interval.open() ? "open" : Duration.ofNanos(interval.endNanos()))
        + "]";
  }
}
