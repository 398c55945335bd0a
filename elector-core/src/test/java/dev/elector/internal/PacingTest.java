package dev.elector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The token bucket and the doubling back-off, on explicit instants. */
class PacingTest {
  private static final long S = 1_000_000_000L;

  @Test
  void theBucketLetsTheBurstGoThenOnePerInterval() {
    TokenBucket bucket = new TokenBucket(3, S);
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
    TokenBucket bucket = new TokenBucket(1, 60 * S);
    assertEquals(0, bucket.delayNanos(5 * S), "full at the first instant it is given");
    assertEquals(0, bucket.delayNanos(5 * S), "asking spends nothing");
    bucket.spend(5 * S);
    assertEquals(60 * S, bucket.tryAcquire(5 * S));
    assertEquals(S, bucket.tryAcquire(64 * S));
    assertEquals(0, bucket.tryAcquire(65 * S));
  }

  @Test
  void theBucketRefillsOnlyToItsBurst() {
    TokenBucket bucket = new TokenBucket(2, S);
    bucket.spend(0);
    long later = 1_000 * S;
    assertEquals(0, bucket.tryAcquire(later));
    assertEquals(0, bucket.tryAcquire(later));
    assertEquals(S, bucket.tryAcquire(later), "an hour idle earns no more than the burst");
  }

  @Test
  void theBackOffDoublesToTheCapAndStopsDoublingAfterItsLimit() {
    Doubling doubling = new Doubling(S / 2, 30 * S, 20);
    List<Long> waits = new ArrayList<>();
    for (int n = 0; n <= 8; n++) {
      waits.add(doubling.afterFailures(n));
    }
    assertEquals(List.of(S / 2, S / 2, S, 2 * S, 4 * S, 8 * S, 16 * S, 30 * S, 30 * S), waits);
    assertEquals(4 * S, new Doubling(S, 100 * S, 2).afterFailures(10), "two doublings at most");
    assertEquals(
        Long.MAX_VALUE, new Doubling(Long.MAX_VALUE / 3, Long.MAX_VALUE, 30).afterFailures(3));
  }

  @Test
  void badParametersAreRejectedWithTheValues() {
    assertEquals(
        "a token bucket needs burst >= 1 and a positive interval, got burst 0 and interval 5 ns",
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 5)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Doubling(2, 1, 3));
  }
}
