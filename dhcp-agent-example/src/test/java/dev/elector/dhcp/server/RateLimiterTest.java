package dev.elector.dhcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The server's log limit: one event per interval goes through, carrying the count held back since
 * the previous one; idle time earns no burst.
 */
class RateLimiterTest {
  private static final Duration TEN_S = Duration.ofSeconds(10);
  private final VirtualTime time = VirtualTime.create();
  private final MonotonicClock clock = time.clock();

  @Test
  void theFirstEventGoesThenOnePerIntervalWithTheCountHeldBack() {
    RateLimiter limiter = new RateLimiter(clock, TEN_S.toNanos());
    List<String> transcript = new ArrayList<>();
    for (int second = 0; second <= 25; second++) {
      long held = limiter.tryAcquire();
      if (held >= 0) {
        transcript.add(second + "s:" + held);
      }
      time.advance(Duration.ofSeconds(1));
    }
    assertEquals(List.of("0s:0", "10s:9", "20s:9"), transcript);
  }

  @Test
  void aLongQuietSpellLetsOneEventGoNotABurst() {
    RateLimiter limiter = new RateLimiter(clock, TEN_S.toNanos());
    assertEquals(0, limiter.tryAcquire());
    assertEquals(-1, limiter.tryAcquire());
    time.advance(Duration.ofHours(1));
    assertEquals(1, limiter.tryAcquire(), "the one held back an hour ago is counted");
    assertEquals(-1, limiter.tryAcquire(), "an idle hour earns one event, not more");
    time.advance(TEN_S.minusNanos(1));
    assertEquals(-1, limiter.tryAcquire());
    time.advance(Duration.ofNanos(1));
    assertEquals(2, limiter.tryAcquire());
  }

  @Test
  void fromManyThreadsAtOneInstantExactlyOneGoesAndEveryOtherIsCounted() throws Exception {
    RateLimiter limiter = new RateLimiter(clock, TEN_S.toNanos());
    int threads = 8;
    int perThread = 500;
    AtomicLong let = new AtomicLong();
    AtomicLong reported = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < perThread; i++) {
                  long held = limiter.tryAcquire();
                  if (held >= 0) {
                    let.incrementAndGet();
                    reported.addAndGet(held);
                  }
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertEquals(1, let.get());
    time.advance(TEN_S);
    assertEquals(
        threads * perThread - 1,
        reported.get() + limiter.tryAcquire(),
        "each held-back event is counted once, in this report or the one before");
  }
}
