package dev.elector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The internal names forward to the public pacing types, with their own limits kept. */
class ForwardersTest {
  private static final long S = 1_000_000_000L;

  @Test
  void theBucketForwards() {
    TokenBucket bucket = new TokenBucket(1, 60 * S);
    assertEquals(0, bucket.tryAcquire(5 * S));
    assertEquals(60 * S, bucket.delayNanos(5 * S));
    bucket.spend(65 * S);
    assertEquals(60 * S, bucket.tryAcquire(65 * S));
  }

  @Test
  void aLimitOnTheDoublingsIsALowerCap() {
    assertEquals(4 * S, new Doubling(S, 100 * S, 2).afterFailures(10), "two doublings at most");
    assertEquals(30 * S, new Doubling(S / 2, 30 * S, 20).afterFailures(1_000));
    assertEquals(
        Long.MAX_VALUE, new Doubling(Long.MAX_VALUE / 3, Long.MAX_VALUE, 30).afterFailures(3));
  }

  @Test
  void badParametersAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 5));
    assertThrows(IllegalArgumentException.class, () -> new Doubling(2, 1, 3));
    assertThrows(IllegalArgumentException.class, () -> new Doubling(0, 1, 3));
    assertThrows(IllegalArgumentException.class, () -> new Doubling(1, 2, -1));
  }
}
