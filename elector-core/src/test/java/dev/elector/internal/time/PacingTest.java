package dev.elector.internal.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The token bucket and the exponential back-off, on explicit instants. */
class PacingTest {
  private static final long S = 1_000_000_000L;

  @Test
  void theBucketLetsTheBurstGoThenOnePerInterval() {
    TokenBucket bucket = TokenBucket.of(3, Duration.ofSeconds(1));
    List<Long> sentAt = new ArrayList<>();
    for (long now = 10 * S; now <= 15 * S; now += S / 4) {
      if (bucket.tryAcquire(now) == 0) {
        sentAt.add(now - 10 * S);
      }
    }
    // three at once; the first token is earned back one interval after the first request
    assertEquals(List.of(0L, S / 4, S / 2, S, 2 * S, 3 * S, 4 * S, 5 * S), sentAt);
  }

  @Test
  void theBucketSaysHowLongToWaitAndSpendsNothingWhenAsked() {
    TokenBucket bucket = TokenBucket.of(1, Duration.ofMinutes(1));
    assertEquals(0, bucket.delayNanos(5 * S), "full at the first instant it is given");
    assertEquals(0, bucket.delayNanos(5 * S), "asking spends nothing");
    bucket.spend(5 * S);
    assertEquals(60 * S, bucket.tryAcquire(5 * S));
    assertEquals(S, bucket.tryAcquire(64 * S));
    assertEquals(0, bucket.tryAcquire(65 * S));
  }

  @Test
  void theBucketRefillsOnlyToItsBurst() {
    TokenBucket bucket = TokenBucket.of(2, Duration.ofSeconds(1));
    bucket.spend(0);
    long later = 1_000 * S;
    assertEquals(0, bucket.tryAcquire(later));
    assertEquals(0, bucket.tryAcquire(later));
    assertEquals(S, bucket.tryAcquire(later), "an hour idle earns no more than the burst");
  }

  @Test
  void aSpendBeyondTheBurstDelaysTheNextToken() {
    TokenBucket bucket = TokenBucket.of(1, Duration.ofSeconds(1));
    bucket.spend(0);
    bucket.spend(0);
    assertEquals(2 * S, bucket.delayNanos(0), "two spent at once: the next token in two intervals");
  }

  @Test
  void racingThreadsGetOneTokenOfABurstOfOneBetweenThem() throws Exception {
    // two threads walk the same buckets in step, meeting at a barrier every 100
    int buckets = 200_000;
    TokenBucket[] all = new TokenBucket[buckets];
    for (int i = 0; i < buckets; i++) {
      all[i] = TokenBucket.of(1, Duration.ofSeconds(1));
    }
    AtomicInteger let = new AtomicInteger();
    CyclicBarrier step = new CyclicBarrier(2);
    Runnable walk =
        () -> {
          try {
            for (int i = 0; i < buckets; i++) {
              if (i % 100 == 0) {
                step.await();
              }
              if (all[i].tryAcquire(S) == 0) {
                let.incrementAndGet();
              }
            }
          } catch (InterruptedException | BrokenBarrierException e) {
            throw new AssertionError(e);
          }
        };
    Thread other = new Thread(walk);
    other.start();
    walk.run();
    other.join();
    assertEquals(buckets, let.get(), "one token per bucket, never two");
  }

  @Test
  void theBackOffDoublesFromFirstToTheCap() {
    ExponentialBackoff backoff =
        ExponentialBackoff.of(Duration.ofMillis(500), Duration.ofSeconds(30));
    List<Long> waits = new ArrayList<>();
    for (int n = 0; n <= 8; n++) {
      waits.add(backoff.nanosAfterFailures(n));
    }
    assertEquals(List.of(S / 2, S / 2, S, 2 * S, 4 * S, 8 * S, 16 * S, 30 * S, 30 * S), waits);
    assertEquals(Duration.ofSeconds(30), backoff.afterFailures(Integer.MAX_VALUE));
    assertEquals(
        Long.MAX_VALUE,
        ExponentialBackoff.of(
                Duration.ofNanos(Long.MAX_VALUE / 3), Duration.ofNanos(Long.MAX_VALUE))
            .nanosAfterFailures(3),
        "a doubling past a long stops at the cap");
  }

  @Test
  void badParametersAreRejectedNamingFieldValueAndFix() {
    assertEquals(
        "burst 0 must be at least 1; use 1 for one request per interval",
        assertThrows(IllegalArgumentException.class, () -> TokenBucket.of(0, Duration.ofSeconds(1)))
            .getMessage());
    assertEquals(
        "interval PT0S must be positive; give the time that earns one token back",
        assertThrows(IllegalArgumentException.class, () -> TokenBucket.of(1, Duration.ZERO))
            .getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> TokenBucket.of(Integer.MAX_VALUE, Duration.ofDays(365)),
        "the burst's tolerance must fit in a long");
    assertEquals(
        "max PT1S must be at least first PT2S; raise max or lower first",
        assertThrows(
                IllegalArgumentException.class,
                () -> ExponentialBackoff.of(Duration.ofSeconds(2), Duration.ofSeconds(1)))
            .getMessage());
    assertEquals(
        "first PT-1S must be positive; give the wait after the first failure",
        assertThrows(
                IllegalArgumentException.class,
                () -> ExponentialBackoff.of(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
            .getMessage());
  }
}
