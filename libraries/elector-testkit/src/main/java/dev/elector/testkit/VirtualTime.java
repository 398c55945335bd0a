package dev.elector.testkit;

import dev.elector.ElectorConfig;
import dev.elector.LeaderElector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Virtual time for electors: one {@link FakeClock} and one {@link VirtualScheduler} shared by any
 * number of electors, so that an hour of elections runs in milliseconds and deterministically.
 *
 * <pre>{@code
 * VirtualTime time = VirtualTime.withSeed(42);
 * LeaderElector a = LeaderElector.start(time.configure(ElectorConfig.newBuilder()).lock(...)...build());
 * time.advance(Duration.ofSeconds(30));
 * }</pre>
 */
public final class VirtualTime {
  private final FakeClock clock = new FakeClock();
  private final VirtualScheduler scheduler = new VirtualScheduler(clock);
  private final SplittableRandom seeds;
  private final long seed;

  private VirtualTime(long seed) {
    this.seed = seed;
    this.seeds = new SplittableRandom(seed);
  }

  /** Creates virtual time whose jitter is drawn from {@code seed}. */
  public static VirtualTime withSeed(long seed) {
    return new VirtualTime(seed);
  }

  /** The seed, to print when a randomized test fails. */
  public long seed() {
    return seed;
  }

  /** The clock, which only the scheduler (or the test) moves. */
  public FakeClock clock() {
    return clock;
  }

  /** The scheduler on this clock; pass it to electors and locks. */
  public VirtualScheduler scheduler() {
    return scheduler;
  }

  /**
   * Sets the builder's clock, scheduler and callback executor to virtual ones, a fresh wall clock
   * following the virtual clock, and a jitter source derived from the seed.
   */
  public ElectorConfig.Builder configure(ElectorConfig.Builder builder) {
    return configure(builder, clock.newWallClock());
  }

  /** As {@link #configure(ElectorConfig.Builder)}, with a given wall clock. */
  public ElectorConfig.Builder configure(
      ElectorConfig.Builder builder, FakeClock.FakeWallClock wallClock) {
    SplittableRandom random;
    synchronized (seeds) {
      random = seeds.split();
    }
    return builder
        .clock(clock)
        .wallClock(wallClock)
        .scheduler(scheduler)
        .callbackExecutor(scheduler)
        .random(random);
  }

  /** Advances virtual time, running everything due. */
  public void advance(Duration duration) {
    scheduler.advance(duration);
  }

  /** Time since start. */
  public Duration elapsed() {
    return clock.elapsed();
  }

  /** Closes the electors and runs virtual time until all have finished closing. */
  public void close(LeaderElector... electors) {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (LeaderElector elector : electors) {
      closing.add(elector.closeAsync());
    }
    scheduler.advanceUntil(
        () -> closing.stream().allMatch(CompletableFuture::isDone), Duration.ofMinutes(10));
  }
}
