package dev.elector.testkit;

import dev.elector.ElectorConfig;
import dev.elector.LeaderElector;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Virtual time for electors: one monotonic clock, the scheduler that moves it, and wall clocks that
 * follow it, shared by any number of electors, so that an hour of elections runs in milliseconds
 * and deterministically. The clock and the scheduler come as a pair and cannot disagree: a task
 * always runs with the clock at its due time.
 *
 * <p>Nothing runs until the test drives time with {@link #advance}, {@link #advanceUntil} or {@link
 * #runDueTasks}; tasks then run on the calling thread, one at a time, in order of due time (ties in
 * order of scheduling). Other threads may schedule tasks.
 *
 * <pre>{@code
 * VirtualTime time = VirtualTime.withSeed(42);
 * LeaderElector a = LeaderElector.start(time.configure(ElectorConfig.newBuilder()).lock(...)...build());
 * time.advance(Duration.ofSeconds(30));
 * }</pre>
 */
public final class VirtualTime {
  /** The wall-clock time at which every virtual wall clock starts. */
  public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

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

  /** Creates virtual time with seed 0, for tests that configure no elector. */
  public static VirtualTime create() {
    return withSeed(0);
  }

  /** The seed, to print when a randomized test fails. */
  public long seed() {
    return seed;
  }

  /** The monotonic clock, which only this virtual time moves; it starts at 0. */
  public MonotonicClock clock() {
    return clock;
  }

  /** The scheduler on this clock; pass it to electors, locks and anything paced with them. */
  public Scheduler scheduler() {
    return scheduler;
  }

  /**
   * A new wall clock that follows the monotonic clock from {@link #EPOCH}. Each one can be jumped
   * on its own with {@link #jumpWallClock}.
   */
  public Clock newWallClock() {
    return clock.newWallClock();
  }

  /**
   * Jumps a wall clock (forward or back) without moving monotonic time, as NTP or an operator might
   * jump a candidate's clock.
   *
   * @throws IllegalArgumentException if {@code wallClock} was not made by {@link #newWallClock()}
   *     of this virtual time
   */
  public void jumpWallClock(Clock wallClock, Duration by) {
    Objects.requireNonNull(by, "by");
    if (!(wallClock instanceof FakeClock.FakeWallClock wall) || !wall.follows(clock)) {
      throw new IllegalArgumentException(
          "only a wall clock from this VirtualTime's newWallClock() can be jumped, not "
              + wallClock);
    }
    wall.jump(by);
  }

  /**
   * Sets the builder's clock, scheduler and callback executor to virtual ones, a fresh wall clock
   * following the virtual clock, and a jitter source derived from the seed.
   */
  public ElectorConfig.Builder configure(ElectorConfig.Builder builder) {
    return configure(builder, newWallClock());
  }

  /** As {@link #configure(ElectorConfig.Builder)}, with a given wall clock. */
  public ElectorConfig.Builder configure(ElectorConfig.Builder builder, Clock wallClock) {
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

  /** Advances time by {@code duration}, running every task due meanwhile, each at its due time. */
  public void advance(Duration duration) {
    scheduler.advance(duration);
  }

  /**
   * Moves time forward without running anything, as if the process were frozen (a long garbage
   * collection, a stopped container): the tasks that fell due meanwhile run, late, at the next
   * {@link #advance}, {@link #advanceUntil} or {@link #runDueTasks}.
   *
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public void stall(Duration duration) {
    clock.advance(duration);
  }

  /** Runs every task due now, including tasks they schedule for now. */
  public void runDueTasks() {
    scheduler.runDueTasks();
  }

  /**
   * Runs tasks one at a time until {@code condition} holds, but not past {@code limit} from now;
   * then runs the rest of the tasks due at that same instant (such as callbacks queued by the step
   * that made the condition true), without moving the clock further.
   *
   * @return the virtual time it took
   * @throws AssertionError if the condition did not hold within the limit
   */
  public Duration advanceUntil(BooleanSupplier condition, Duration limit) {
    return scheduler.advanceUntil(condition, limit);
  }

  /** Time since start. */
  public Duration elapsed() {
    return clock.elapsed();
  }

  /** Number of tasks waiting (cancelled ones excluded). */
  public int pendingTasks() {
    return scheduler.pendingTasks();
  }

  /** Number of tasks run so far. */
  public long tasksRun() {
    return scheduler.tasksRun();
  }

  /**
   * Fails, naming each task still scheduled and when it is due, if anything is left to run: after
   * every elector is closed, a task left behind is a leak (a timer not cancelled, a step that
   * outlives its elector).
   */
  public void assertNoMoreTasks() {
    scheduler.assertNoMoreTasks();
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
