package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The watch bound in virtual time: a loop shaped like {@link ListWatchLoop}'s drives the pacer
 * against servers that misbehave in each way a real one or a proxy can, and every interval of the
 * run is checked against the documented bound.
 */
class WatchPacerTest {
  private static final Duration RUN = Duration.ofMinutes(10);
  private static final Duration WINDOW = Duration.ofSeconds(20);

  /** What the server does with one request, and how long that takes. */
  private enum Answer {
    LISTED,
    WATCH_ENDED_EMPTY,
    WATCH_GONE,
    WATCH_EVENT_THEN_CUT,
    FAILED,
    THROTTLED,
    WATCH_HEALTHY
  }

  /** A virtual clock and the times at which requests went out. */
  private static final class Run {
    long now = 1_000_000_000L;
    final List<Long> sent = new ArrayList<>();
    final List<Long> failedAt = new ArrayList<>();
    final WatchPacer pacer = new WatchPacer(() -> now, new SplittableRandom(7));

    void advance(Duration d) {
      now += d.toNanos();
    }

    long countIn(long from, long to) {
      return sent.stream().filter(t -> t >= from && t < to).count();
    }

    /** The most requests in any window of this length, over the whole run. */
    long busiest(Duration window) {
      long most = 0;
      for (long start : sent) {
        most = Math.max(most, countIn(start, start + window.toNanos()));
      }
      return most;
    }
  }

  /**
   * Runs the loop for {@link #RUN}: list, then watch, as {@link ListWatchLoop} does; the server
   * answers every watch with {@code watchAnswer} (lists succeed unless {@code listsFail}).
   */
  private static Run loop(Answer watchAnswer, boolean listsFail, Duration eventEvery) {
    Run run = new Run();
    long end = run.now + RUN.toNanos();
    boolean needList = true;
    boolean afterList = false;
    while (run.now < end) {
      run.advance(Duration.ofNanos(run.pacer.delayNanos()));
      run.sent.add(run.now);
      run.pacer.sent();
      if (needList) {
        run.advance(Duration.ofMillis(3));
        if (listsFail) {
          run.pacer.failed(Duration.ZERO);
          run.failedAt.add(run.now);
        } else {
          needList = false;
          afterList = true;
        }
        continue;
      }
      long opened = run.now;
      boolean unhealthy;
      Duration retryAfter = Duration.ZERO;
      switch (watchAnswer) {
        case WATCH_ENDED_EMPTY -> {
          run.advance(Duration.ofMillis(2));
          unhealthy = run.pacer.isShort(opened);
        }
        case WATCH_GONE -> {
          run.advance(Duration.ofMillis(2));
          unhealthy = afterList && run.pacer.isShort(opened);
          needList = true;
        }
        case WATCH_EVENT_THEN_CUT -> {
          run.advance(eventEvery);
          unhealthy = false;
        }
        case FAILED -> {
          run.advance(Duration.ofMillis(2));
          unhealthy = true;
        }
        case THROTTLED -> {
          run.advance(Duration.ofMillis(2));
          unhealthy = true;
          retryAfter = Duration.ofSeconds(7);
        }
        case WATCH_HEALTHY -> {
          run.advance(Duration.ofMinutes(4));
          unhealthy = false;
        }
        default -> throw new AssertionError(watchAnswer);
      }
      run.pacer.watchClosed(opened);
      afterList = false;
      if (unhealthy) {
        run.pacer.failed(retryAfter);
        run.failedAt.add(run.now);
        needList = true;
      }
    }
    return run;
  }

  private static void assertWithinBound(Run run) {
    for (Duration window :
        List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), WINDOW, Duration.ofMinutes(2))) {
      long busiest = run.busiest(window);
      assertTrue(
          busiest <= WatchPacer.bound(window),
          "at most "
              + WatchPacer.bound(window)
              + " requests in any "
              + window
              + ", but "
              + busiest);
    }
  }

  @Test
  void aWatchAnsweredWithAnEmptyStreamBacksOffToTheCap() {
    Run run = loop(Answer.WATCH_ENDED_EMPTY, false, Duration.ZERO);

    assertWithinBound(run);
    // list + watch per attempt, then 0.5, 1, 2, ... 30 s: about 60 requests in 10 minutes
    assertTrue(run.sent.size() <= 70, "requests in 10 min: " + run.sent.size());
    long lastMinute = run.countIn(run.now - Duration.ofMinutes(1).toNanos(), run.now);
    assertTrue(lastMinute <= 6, "at the 30 s cap, at most 2 attempts a minute: " + lastMinute);
  }

  @Test
  void aWatchThatIsGoneRightAfterEveryListBacksOff() {
    Run run = loop(Answer.WATCH_GONE, false, Duration.ZERO);

    assertWithinBound(run);
    assertTrue(run.sent.size() <= 70, "requests in 10 min: " + run.sent.size());
  }

  @Test
  void aStreamCutAfterEveryEventIsHeldToOneRequestPerInterval() {
    Run run = loop(Answer.WATCH_EVENT_THEN_CUT, false, Duration.ofMillis(100));

    assertWithinBound(run);
    assertTrue(run.failedAt.isEmpty(), "each watch brought an event, so none is a failure");
    long expected = WatchPacer.bound(RUN);
    assertTrue(
        run.sent.size() >= expected - 2,
        "the bucket, not back-off, paces a useful watch: " + run.sent.size() + " of " + expected);
  }

  @Test
  void failingRequestsBackOffExponentiallyWithJitter() {
    Run run = loop(Answer.FAILED, true, Duration.ZERO);

    assertWithinBound(run);
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < run.sent.size(); i++) {
      gaps.add(run.sent.get(i) - run.sent.get(i - 1));
    }
    assertTrue(gaps.get(0) >= Duration.ofMillis(500).toNanos(), "first back-off " + gaps.get(0));
    assertTrue(gaps.get(1) >= Duration.ofSeconds(1).toNanos(), "second back-off " + gaps.get(1));
    long cap = WatchPacer.MAX_BACKOFF.toNanos();
    long last = gaps.get(gaps.size() - 1);
    assertTrue(last >= cap && last <= cap + cap / 5 + 3_000_000, "capped with jitter: " + last);
    assertTrue(gaps.stream().distinct().count() > gaps.size() / 2, "jitter draws gaps anew");
  }

  @Test
  void throttlingIsHonouredWhenRetryAfterIsLongerThanTheBackoff() {
    Run run = loop(Answer.THROTTLED, false, Duration.ZERO);

    assertWithinBound(run);
    for (long failed : run.failedAt) {
      long next = run.sent.stream().filter(t -> t > failed).findFirst().orElse(Long.MAX_VALUE);
      assertTrue(
          next - failed >= Duration.ofSeconds(7).toNanos(),
          "no request within Retry-After: 7 s; the next came after " + (next - failed) + " ns");
    }
  }

  @Test
  void aHealthyWatchCostsOneRequestPerServerTimeout() {
    Run run = loop(Answer.WATCH_HEALTHY, false, Duration.ZERO);

    assertEquals(1 + 3, run.sent.size(), "a list, then one watch per 4 minutes");
  }

  @Test
  void aHealthyLongWatchEndsTheStreakSoTheNextFailureWaitsLittle() {
    long[] now = {0};
    WatchPacer pacer = new WatchPacer(() -> now[0], new SplittableRandom(1));
    for (int i = 0; i < 8; i++) {
      pacer.failed(Duration.ZERO);
    }
    assertTrue(pacer.failed(Duration.ZERO).compareTo(WatchPacer.MAX_BACKOFF) >= 0, "at the cap");

    long opened = now[0];
    now[0] += WatchPacer.HEALTHY_WATCH.toNanos();
    pacer.watchClosed(opened);

    assertEquals(0, pacer.streak());
    Duration next = pacer.failed(Duration.ZERO);
    assertTrue(next.compareTo(Duration.ofMillis(600)) <= 0, "back to the first back-off: " + next);
  }

  @Test
  void aShortWatchDoesNotEndTheStreak() {
    long[] now = {0};
    WatchPacer pacer = new WatchPacer(() -> now[0], new SplittableRandom(1));
    pacer.failed(Duration.ZERO);
    pacer.failed(Duration.ZERO);

    long opened = now[0];
    now[0] += WatchPacer.HEALTHY_WATCH.toNanos() - 1;
    pacer.watchClosed(opened);

    assertEquals(2, pacer.streak());
  }

  @Test
  void anAbsurdRetryAfterIsCut() {
    long[] now = {0};
    WatchPacer pacer = new WatchPacer(() -> now[0], new SplittableRandom(1));

    assertEquals(WatchPacer.MAX_RETRY_AFTER, pacer.failed(Duration.ofDays(1)));
  }

  @Test
  void theBucketLetsABurstGoThenOnePerInterval() {
    long[] now = {0};
    WatchPacer pacer = new WatchPacer(() -> now[0], new SplittableRandom(1));
    for (int i = 0; i < WatchPacer.BURST; i++) {
      assertEquals(0, pacer.delayNanos(), "request " + (i + 1) + " of the burst");
      pacer.sent();
    }
    assertEquals(WatchPacer.MIN_INTERVAL.toNanos(), pacer.delayNanos());

    now[0] += WatchPacer.MIN_INTERVAL.toNanos();
    assertEquals(0, pacer.delayNanos());
  }

  @Test
  void retryAfterIsReadAsSeconds() {
    assertEquals(Duration.ofSeconds(3), WatchPacer.retryAfter("3"));
    assertEquals(Duration.ZERO, WatchPacer.retryAfter(null));
    assertEquals(Duration.ZERO, WatchPacer.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT"));
    assertEquals(Duration.ZERO, WatchPacer.retryAfter("-4"));
  }
}
