package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The settings of an {@link ElectorConfig} as the caller gave them, listed once: a builder edits
 * its own instance, and each config keeps a {@link #copy()} that nothing changes after {@code
 * build()} (reached only through the config's final field, so every thread sees it whole).
 *
 * <p>The settings whose defaults derive from the timings (callTimeout, maxBackoff, closeTimeout,
 * healthTolerance) stay null when unset, so that a copy made with {@code toBuilder()} derives them
 * anew from the timings it ends up with; the {@code resolved} methods derive them, and nothing else
 * does.
 */
final class ConfigValues {
  // The defaults, published as ElectorConfig's constants; kept here so the rules need no config.
  static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
  static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);
  static final double DEFAULT_JITTER = 1.2;
  static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(16);

  @Nullable LeaderLock lock;
  @Nullable LeaderCallbacks callbacks;
  Duration leaseDuration = DEFAULT_LEASE_DURATION;
  Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
  Duration retryPeriod = DEFAULT_RETRY_PERIOD;
  double jitter = DEFAULT_JITTER;
  @Nullable Duration callTimeout;
  @Nullable Duration maxBackoff;
  @Nullable Duration closeTimeout;
  @Nullable Duration healthTolerance;
  boolean releaseOnClose = true;
  boolean watchWhenFollowing = true;
  MonotonicClock clock = MonotonicClock.system();
  Clock wallClock = Clock.systemUTC();
  @Nullable Scheduler scheduler;
  @Nullable Executor callbackExecutor;
  ElectorListener listener = ElectorListener.NONE;
  CompletionStage<?> readinessGate = CompletableFuture.completedFuture(null);
  @Nullable RandomGenerator random;

  /** A copy with every setting, set or unset, as here. */
  ConfigValues copy() {
    ConfigValues c = new ConfigValues();
    c.lock = lock;
    c.callbacks = callbacks;
    c.leaseDuration = leaseDuration;
    c.renewDeadline = renewDeadline;
    c.retryPeriod = retryPeriod;
    c.jitter = jitter;
    c.callTimeout = callTimeout;
    c.maxBackoff = maxBackoff;
    c.closeTimeout = closeTimeout;
    c.healthTolerance = healthTolerance;
    c.releaseOnClose = releaseOnClose;
    c.watchWhenFollowing = watchWhenFollowing;
    c.clock = clock;
    c.wallClock = wallClock;
    c.scheduler = scheduler;
    c.callbackExecutor = callbackExecutor;
    c.listener = listener;
    c.readinessGate = readinessGate;
    c.random = random;
    return c;
  }

  /** callTimeout, or renewDeadline / 2. */
  Duration resolvedCallTimeout() {
    Duration given = callTimeout;
    return given != null ? given : renewDeadline.dividedBy(2);
  }

  /** maxBackoff, or the default cap, or retryPeriod if that is longer. */
  Duration resolvedMaxBackoff() {
    Duration given = maxBackoff;
    if (given != null) {
      return given;
    }
    return retryPeriod.compareTo(DEFAULT_MAX_BACKOFF) > 0 ? retryPeriod : DEFAULT_MAX_BACKOFF;
  }

  /** closeTimeout, or renewDeadline. */
  Duration resolvedCloseTimeout() {
    Duration given = closeTimeout;
    return given != null ? given : renewDeadline;
  }

  /** healthTolerance, or retryPeriod. */
  Duration resolvedHealthTolerance() {
    Duration given = healthTolerance;
    return given != null ? given : retryPeriod;
  }
}
