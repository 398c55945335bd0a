package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * The immutable configuration of one elector. Build it with {@link #newBuilder()}; derive variants
 * with {@link #toBuilder()}. Every rule is checked in {@link Builder#build()}, which reports all
 * violations at once.
 *
 * <p>Timing rules (as client-go's): {@code leaseDuration > renewDeadline > jitter × retryPeriod}.
 * The gap between leaseDuration and renewDeadline is the safety margin: a leader that cannot renew
 * steps down at renewDeadline, while others wait a whole leaseDuration from when they last saw the
 * record change, so clocks may run at slightly different rates and the leader's work has time to
 * stop.
 */
public final class ElectorConfig {
  /** Default lease duration: 15 s. */
  public static final Duration DEFAULT_LEASE_DURATION = ConfigValues.DEFAULT_LEASE_DURATION;

  /** Default renew deadline: 10 s. */
  public static final Duration DEFAULT_RENEW_DEADLINE = ConfigValues.DEFAULT_RENEW_DEADLINE;

  /** Default retry period: 2 s. */
  public static final Duration DEFAULT_RETRY_PERIOD = ConfigValues.DEFAULT_RETRY_PERIOD;

  /** Default jitter factor: 1.2. */
  public static final double DEFAULT_JITTER = ConfigValues.DEFAULT_JITTER;

  /** Default cap on the back-off after errors: 16 s. */
  public static final Duration DEFAULT_MAX_BACKOFF = ConfigValues.DEFAULT_MAX_BACKOFF;

  /** Calls a candidate may make at once before the budget's rate applies: 4. */
  public static final int CALL_BURST = 4;

  /** Calls a candidate may make per retry period, on average, in any state: 2. */
  public static final int CALLS_PER_RETRY_PERIOD = 2;

  private final ConfigValues values;
  private final LeaderLock lock;
  private final LeaderCallbacks callbacks;
  private final ElectorListener notified;

  private ElectorConfig(ConfigValues values, LeaderLock lock, LeaderCallbacks callbacks) {
    this.values = values;
    this.lock = lock;
    this.callbacks = callbacks;
    this.notified = Listeners.withLockListener(values.listener, lock);
  }

  /** Returns a builder with the defaults. */
  public static Builder newBuilder() {
    return new Builder(new ConfigValues());
  }

  /**
   * Returns a builder holding this configuration's values. Settings left to their defaults stay
   * unset, so those derived from the timings (callTimeout, maxBackoff, closeTimeout,
   * healthTolerance) are derived again from the timings the copy ends up with.
   */
  public Builder toBuilder() {
    return new Builder(values.copy());
  }

  /** The lock contended for; its identity is this candidate's. */
  public LeaderLock lock() {
    return lock;
  }

  /** The callbacks. */
  public LeaderCallbacks callbacks() {
    return callbacks;
  }

  /** How long a lease lasts after each renewal; written into the record. */
  public Duration leaseDuration() {
    return values.leaseDuration;
  }

  /** How long a leader keeps trying to renew before it steps down. */
  public Duration renewDeadline() {
    return values.renewDeadline;
  }

  /** How often a leader renews and a candidate retries. */
  public Duration retryPeriod() {
    return values.retryPeriod;
  }

  /**
   * Candidates between looks, and leaders between renewals, wait a random time between retryPeriod
   * and jitter × retryPeriod.
   */
  public double jitter() {
    return values.jitter;
  }

  /** How long one lock call may take before it counts as failed and is cancelled. */
  public Duration callTimeout() {
    return values.resolvedCallTimeout();
  }

  /**
   * The cap on the back-off after consecutive errors. The back-off applies while the lock is
   * someone else's anyway and after a configuration problem; a candidate that could take the lock
   * tries once a retry period.
   */
  public Duration maxBackoff() {
    return values.resolvedMaxBackoff();
  }

  /** How long {@code close()} waits for the stop callback and the release. */
  public Duration closeTimeout() {
    return values.resolvedCloseTimeout();
  }

  /** How far past leaseDuration a leader may go without renewing before it reports unhealthy. */
  public Duration healthTolerance() {
    return values.resolvedHealthTolerance();
  }

  /** Whether closing a leader releases the lock so a successor takes over at once. */
  public boolean releaseOnClose() {
    return values.releaseOnClose;
  }

  /**
   * Whether a candidate watches a lock that can be watched ({@link LeaderLock#watch}) instead of
   * polling it.
   */
  public boolean watchWhenFollowing() {
    return values.watchWhenFollowing;
  }

  /** The monotonic clock that judges durations. */
  public MonotonicClock clock() {
    return values.clock;
  }

  /** The wall clock used only for timestamps written into records. */
  public Clock wallClock() {
    return values.wallClock;
  }

  /** The scheduler, or empty for the shared default. */
  public Optional<Scheduler> scheduler() {
    return Optional.ofNullable(values.scheduler);
  }

  /** The callback executor, or empty for the shared default. */
  public Optional<Executor> callbackExecutor() {
    return Optional.ofNullable(values.callbackExecutor);
  }

  /**
   * The listener set with {@link Builder#listener}, or {@link ElectorListener#NONE}. The elector
   * also notifies the lock after it when the lock is itself an {@link ElectorListener} (a
   * Kubernetes lock recording Events, for example); the lock is not part of this value, so a copy
   * made with {@code listener(config.listener())} does not notify it twice.
   */
  public ElectorListener listener() {
    return values.listener;
  }

  /** The listener the elector notifies: the configured one, then the lock if it listens. */
  ElectorListener notifiedListener() {
    return notified;
  }

  /** Candidacy starts when this completes normally. */
  public CompletionStage<?> readinessGate() {
    return values.readinessGate;
  }

  /** The source of jitter, or empty for a fresh one per elector. */
  public Optional<RandomGenerator> random() {
    return Optional.ofNullable(values.random);
  }

  @Override
  public String toString() {
    return "ElectorConfig{lock="
        + lock.describe()
        + ", identity="
        + lock.identity()
        + ", leaseDuration="
        + values.leaseDuration
        + ", renewDeadline="
        + values.renewDeadline
        + ", retryPeriod="
        + values.retryPeriod
        + ", jitter="
        + values.jitter
        + ", callTimeout="
        + callTimeout()
        + ", maxBackoff="
        + maxBackoff()
        + ", releaseOnClose="
        + values.releaseOnClose
        + ", watchWhenFollowing="
        + values.watchWhenFollowing
        + '}';
  }

  /**
   * Builds an {@link ElectorConfig}. Setters reject null at once; values are checked in build().
   */
  public static final class Builder {
    private final ConfigValues values;

    private Builder(ConfigValues values) {
      this.values = values;
    }

    /** The lock to contend for (required). The lock's identity is the candidate's. */
    public Builder lock(LeaderLock lock) {
      values.lock = Objects.requireNonNull(lock, "lock");
      return this;
    }

    /** The callbacks (required). */
    public Builder callbacks(LeaderCallbacks callbacks) {
      values.callbacks = Objects.requireNonNull(callbacks, "callbacks");
      return this;
    }

    /** Lease duration; default 15 s. Backends store whole seconds, rounded up. */
    public Builder leaseDuration(Duration leaseDuration) {
      values.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
      return this;
    }

    /** Renew deadline; default 10 s; must be shorter than leaseDuration. */
    public Builder renewDeadline(Duration renewDeadline) {
      values.renewDeadline = Objects.requireNonNull(renewDeadline, "renewDeadline");
      return this;
    }

    /** Retry period; default 2 s; jitter × retryPeriod must be shorter than renewDeadline. */
    public Builder retryPeriod(Duration retryPeriod) {
      values.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
      return this;
    }

    /** Jitter factor, at least 1.0; default 1.2. */
    public Builder jitter(double jitter) {
      values.jitter = jitter;
      return this;
    }

    /**
     * How long the elector waits for one lock call; default renewDeadline / 2 (5 s with the default
     * renewDeadline); at most renewDeadline, so that a call that hangs cannot outlive a term.
     *
     * <p>A call without an answer by then counts as a failed call with a {@code TIMEOUT} failure,
     * and the elector cancels it: a lock that honours cancellation (see {@link LeaderLock}) stops
     * its I/O then. Each call carries this timeout to the lock ({@link LeaderLock}), so one
     * deadline bounds it from the call to the wire: the Kubernetes locks bound each request by it,
     * or by their requestTimeout when that is set shorter (a slow request then fails, and the
     * elector tries again, sooner).
     */
    public Builder callTimeout(Duration callTimeout) {
      values.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
      return this;
    }

    /** Cap on the error back-off; default 16 s or retryPeriod if longer; at least retryPeriod. */
    public Builder maxBackoff(Duration maxBackoff) {
      values.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
      return this;
    }

    /**
     * How long close() waits for the stop callback and the release; default renewDeadline. A lock
     * call still in flight when close() stops waiting is cancelled, as one past callTimeout is.
     */
    public Builder closeTimeout(Duration closeTimeout) {
      values.closeTimeout = Objects.requireNonNull(closeTimeout, "closeTimeout");
      return this;
    }

    /** Tolerance past leaseDuration before a leader reports unhealthy; default retryPeriod. */
    public Builder healthTolerance(Duration healthTolerance) {
      values.healthTolerance = Objects.requireNonNull(healthTolerance, "healthTolerance");
      return this;
    }

    /** Whether closing a leader releases the lock; default true. */
    public Builder releaseOnClose(boolean releaseOnClose) {
      values.releaseOnClose = releaseOnClose;
      return this;
    }

    /**
     * Whether to watch a lock that can be watched ({@link LeaderLock#watch}) instead of polling it;
     * default true.
     */
    public Builder watchWhenFollowing(boolean watchWhenFollowing) {
      values.watchWhenFollowing = watchWhenFollowing;
      return this;
    }

    /** Monotonic clock; default {@link MonotonicClock#system()}. Intended for tests. */
    public Builder clock(MonotonicClock clock) {
      values.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Wall clock for record timestamps; default {@link Clock#systemUTC()}. */
    public Builder wallClock(Clock wallClock) {
      values.wallClock = Objects.requireNonNull(wallClock, "wallClock");
      return this;
    }

    /** Scheduler for the election loop; default a shared pool of two daemon threads. */
    public Builder scheduler(Scheduler scheduler) {
      values.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Executor for callbacks; default a shared pool of daemon threads that runs callbacks on one
     * thread while they return quickly and adds a thread whenever the oldest waiting callback has
     * waited 100 ms behind busy ones (a callback that blocks holds the others back by at most
     * that).
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      values.callbackExecutor = Objects.requireNonNull(callbackExecutor, "callbackExecutor");
      return this;
    }

    /** Metrics listener; default none. */
    public Builder listener(ElectorListener listener) {
      values.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Candidacy waits until this completes, for example until caches are synced. */
    public Builder readinessGate(CompletionStage<?> readinessGate) {
      values.readinessGate = Objects.requireNonNull(readinessGate, "readinessGate");
      return this;
    }

    /** Source of jitter; default a new generator per elector. For deterministic tests. */
    public Builder random(RandomGenerator random) {
      values.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The problems {@link #build()} would report with the timing settings (leaseDuration,
     * renewDeadline, retryPeriod, jitter, callTimeout, maxBackoff, closeTimeout and
     * healthTolerance), checked without a lock or callbacks, so a framework can check its settings
     * before it makes the lock. Empty when the timings are valid; by default they are.
     */
    public List<ConfigProblem> timingProblems() {
      return List.copyOf(ConfigRules.timings(values.copy()));
    }

    /**
     * Every problem {@link #build()} would report, as data, in the order of its message: a missing
     * lock (or its blank identity), missing callbacks, then the problems of {@link
     * #timingProblems()}. Empty when {@code build()} would succeed.
     */
    public List<ConfigProblem> problems() {
      return List.copyOf(ConfigRules.violations(values.copy()));
    }

    /**
     * Checks every rule and builds the configuration.
     *
     * @throws IllegalArgumentException listing every problem with how to fix it, one {@link
     *     ConfigProblem#message()} a line, after the count; {@link #problems()} gives them as data
     */
    public ElectorConfig build() {
      ConfigValues given = values.copy();
      List<ConfigProblem> problems = ConfigRules.violations(given);
      LeaderLock lock = given.lock;
      LeaderCallbacks callbacks = given.callbacks;
      // A missing lock or callbacks is among the problems.
      if (!problems.isEmpty() || lock == null || callbacks == null) {
        throw new IllegalArgumentException(describe(problems));
      }
      return new ElectorConfig(given, lock, callbacks);
    }

    private static String describe(List<ConfigProblem> problems) {
      StringBuilder message =
          new StringBuilder("Invalid elector configuration (")
              .append(problems.size())
              .append(problems.size() == 1 ? " problem):" : " problems):");
      for (ConfigProblem problem : problems) {
        message.append("\n  - ").append(problem.message());
      }
      return message.toString();
    }
  }
}
