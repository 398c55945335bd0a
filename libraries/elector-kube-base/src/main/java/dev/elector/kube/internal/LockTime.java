package dev.elector.kube.internal;

import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * How a lock, its list/watch loop and its Events recorder read time, wait and draw jitter: the seam
 * that lets a test run them in virtual time.
 *
 * @param clock the monotonic time of deadlines, back-off and rate limits
 * @param scheduler where a list/watch loop runs its steps and waits between them; null for a daemon
 *     thread of each loop's own
 * @param random the jitter of back-off and of watch timeouts; null for a generator of each loop's
 *     own
 */
public record LockTime(
    MonotonicClock clock, @Nullable Scheduler scheduler, @Nullable RandomGenerator random) {

  /** The real clock, a thread of its own for each loop, fresh randomness. */
  public static final LockTime SYSTEM = new LockTime(MonotonicClock.system(), null, null);

  public LockTime {
    Objects.requireNonNull(clock, "clock");
  }

  /** The generator for one loop: the one given, or a new one. */
  RandomGenerator randomFor() {
    RandomGenerator given = random;
    return given != null ? given : new SplittableRandom();
  }
}
