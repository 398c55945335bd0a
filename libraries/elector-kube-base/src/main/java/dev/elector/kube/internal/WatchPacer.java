package dev.elector.kube.internal;

import dev.elector.internal.time.ExponentialBackoff;
import dev.elector.internal.time.TokenBucket;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * When a list-then-watch loop may send its next request, whatever the server does. Pure: it reads
 * time only through the clock it is given and draws jitter only from the generator it is given, so
 * a test can drive it in virtual time.
 *
 * <p>Two rules, both always in force:
 *
 * <ul>
 *   <li><b>The bound.</b> In any interval T, at most {@link #BURST} + T / {@link #MIN_INTERVAL}
 *       list and watch requests (a token bucket that holds {@link #BURST} and refills one per
 *       {@link #MIN_INTERVAL}). A healthy watch makes one request per server-side timeout (4 to 5
 *       minutes), so only a misbehaving server or proxy ever meets this bound.
 *   <li><b>The back-off.</b> After each unhealthy outcome the next request waits {@link
 *       #FIRST_BACKOFF} doubling to {@link #MAX_BACKOFF}, plus up to a fifth more at random, or the
 *       server's {@code Retry-After} when that is longer (up to {@link #MAX_RETRY_AFTER}).
 *       Unhealthy outcomes: a failed list or watch; a watch that ended within {@link #SHORT_WATCH}
 *       without a single event; a watch that answered 410 Gone within {@link #SHORT_WATCH}. A watch
 *       that stayed open for {@link #HEALTHY_WATCH} ends the streak.
 * </ul>
 *
 * <p>Not thread-safe: one loop owns it. Internal: shared by the Kubernetes backends, not API.
 */
public final class WatchPacer {
  /** Requests that may go out back to back. */
  public static final int BURST = 4;

  /** One more request may go out per this interval. */
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

  /** A watch that ends sooner than this without any event was of no use. */
  public static final Duration SHORT_WATCH = Duration.ofSeconds(2);

  /** A watch open at least this long shows the server and the path to it are healthy again. */
  public static final Duration HEALTHY_WATCH = Duration.ofSeconds(30);

  public static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
  public static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** A longer {@code Retry-After} is cut to this, so that a wrong header cannot stop the watch. */
  public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

  private static final long INTERVAL_NANOS = MIN_INTERVAL.toNanos();

  private static final ExponentialBackoff BACKOFF =
      ExponentialBackoff.of(FIRST_BACKOFF, MAX_BACKOFF);

  private final LongSupplier nanoTime;
  private final RandomGenerator random;

  /** The bound. */
  private final TokenBucket bucket = TokenBucket.of(BURST, MIN_INTERVAL);

  /** No request before this, because of back-off or Retry-After. */
  private long notBefore;

  private int streak;

  public WatchPacer(LongSupplier nanoTime, RandomGenerator random) {
    this.nanoTime = nanoTime;
    this.random = random;
    long now = nanoTime.getAsLong();
    bucket.delayNanos(now); // full from now on
    this.notBefore = now;
  }

  /** Nanoseconds until the next request may be sent; 0 when it may go now. */
  public long delayNanos() {
    long now = nanoTime.getAsLong();
    long backoff = notBefore - now;
    return Math.max(bucket.delayNanos(now), Math.max(0, backoff));
  }

  /** A request goes out now; call only when {@link #delayNanos()} is 0. */
  public void sent() {
    bucket.spend(nanoTime.getAsLong());
  }

  /**
   * A watch opened at {@code openedAt} (by this pacer's clock) has ended, however it ended. A watch
   * that stayed open for {@link #HEALTHY_WATCH} ends the failure streak.
   */
  public void watchClosed(long openedAt) {
    if (nanoTime.getAsLong() - openedAt >= HEALTHY_WATCH.toNanos()) {
      streak = 0;
    }
  }

  /**
   * Whether a watch opened at {@code openedAt} that ends now, having seen no event, was useless.
   */
  public boolean isShort(long openedAt) {
    return nanoTime.getAsLong() - openedAt < SHORT_WATCH.toNanos();
  }

  /**
   * Records an unhealthy outcome and returns the back-off before the next request.
   *
   * @param retryAfter the server's {@code Retry-After}, or zero
   */
  public Duration failed(Duration retryAfter) {
    streak = Math.min(streak + 1, 64);
    long base = BACKOFF.nanosAfterFailures(streak);
    long jittered = base + (long) (random.nextDouble() * base / 5.0);
    long asked = Math.min(retryAfter.toNanos(), MAX_RETRY_AFTER.toNanos());
    long wait = Math.max(jittered, asked);
    notBefore = nanoTime.getAsLong() + wait;
    return Duration.ofNanos(wait);
  }

  /** Unhealthy outcomes since the last healthy watch. */
  public int streak() {
    return streak;
  }

  /** The most requests the bound allows in any interval of length {@code window}. */
  public static long bound(Duration window) {
    return BURST + window.toNanos() / INTERVAL_NANOS;
  }

  /**
   * A {@code Retry-After} header in seconds, as the API server sends it; zero when absent or not a
   * number of seconds (the HTTP-date form is not used by Kubernetes).
   */
  public static Duration retryAfter(@Nullable String header) {
    if (header == null) {
      return Duration.ZERO;
    }
    try {
      long seconds = Long.parseLong(header.strip());
      return seconds > 0 ? Duration.ofSeconds(Math.min(seconds, 86_400)) : Duration.ZERO;
    } catch (NumberFormatException e) {
      return Duration.ZERO;
    }
  }
}
