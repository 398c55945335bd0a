package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.WatchableLock;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

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
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);

  /** Default renew deadline: 10 s. */
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);

  /** Default retry period: 2 s. */
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

  /** Default jitter factor: 1.2. */
  public static final double DEFAULT_JITTER = 1.2;

  /** Default cap on the back-off after errors: 16 s. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(16);

  /** Calls a candidate may make at once before the budget's rate applies: 4. */
  public static final int CALL_BURST = 4;

  /** Calls a candidate may make per retry period, on average, in any state: 2. */
  public static final int CALLS_PER_RETRY_PERIOD = 2;

  private final LeaderLock lock;
  private final LeaderCallbacks callbacks;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final double jitter;
  private final Duration callTimeout;
  private final Duration maxBackoff;
  private final Duration closeTimeout;
  private final Duration healthTolerance;
  private final boolean releaseOnClose;
  private final boolean watchWhenFollowing;
  private final MonotonicClock clock;
  private final Clock wallClock;
  private final @Nullable Scheduler scheduler;
  private final @Nullable Executor callbackExecutor;
  private final ElectorListener listener;
  private final ElectorListener notified;
  private final CompletionStage<?> readinessGate;
  private final @Nullable RandomGenerator random;
  // What the caller set of the settings whose defaults derive from the timings, so that
  // toBuilder() keeps "unset" unset and a variant with other timings derives them anew.
  private final @Nullable Duration givenCallTimeout;
  private final @Nullable Duration givenMaxBackoff;
  private final @Nullable Duration givenCloseTimeout;
  private final @Nullable Duration givenHealthTolerance;

  private ElectorConfig(Builder b, LeaderLock lock, LeaderCallbacks callbacks) {
    this.lock = lock;
    this.callbacks = callbacks;
    leaseDuration = b.leaseDuration;
    renewDeadline = b.renewDeadline;
    retryPeriod = b.retryPeriod;
    jitter = b.jitter;
    callTimeout = b.callTimeout != null ? b.callTimeout : renewDeadline.dividedBy(2);
    maxBackoff =
        b.maxBackoff != null
            ? b.maxBackoff
            : (retryPeriod.compareTo(DEFAULT_MAX_BACKOFF) > 0 ? retryPeriod : DEFAULT_MAX_BACKOFF);
    closeTimeout = b.closeTimeout != null ? b.closeTimeout : renewDeadline;
    healthTolerance = b.healthTolerance != null ? b.healthTolerance : retryPeriod;
    releaseOnClose = b.releaseOnClose;
    watchWhenFollowing = b.watchWhenFollowing;
    clock = b.clock;
    wallClock = b.wallClock;
    scheduler = b.scheduler;
    callbackExecutor = b.callbackExecutor;
    listener = b.listener;
    notified = withLockListener(listener, lock);
    readinessGate = b.readinessGate;
    random = b.random;
    givenCallTimeout = b.callTimeout;
    givenMaxBackoff = b.maxBackoff;
    givenCloseTimeout = b.closeTimeout;
    givenHealthTolerance = b.healthTolerance;
  }

  /** Returns a builder with the defaults. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Returns a builder holding this configuration's values. Settings left to their defaults stay
   * unset, so those derived from the timings (callTimeout, maxBackoff, closeTimeout,
   * healthTolerance) are derived again from the timings the copy ends up with.
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.lock = lock;
    b.callbacks = callbacks;
    b.leaseDuration = leaseDuration;
    b.renewDeadline = renewDeadline;
    b.retryPeriod = retryPeriod;
    b.jitter = jitter;
    b.callTimeout = givenCallTimeout;
    b.maxBackoff = givenMaxBackoff;
    b.closeTimeout = givenCloseTimeout;
    b.healthTolerance = givenHealthTolerance;
    b.releaseOnClose = releaseOnClose;
    b.watchWhenFollowing = watchWhenFollowing;
    b.clock = clock;
    b.wallClock = wallClock;
    b.scheduler = scheduler;
    b.callbackExecutor = callbackExecutor;
    b.listener = listener;
    b.readinessGate = readinessGate;
    b.random = random;
    return b;
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
    return leaseDuration;
  }

  /** How long a leader keeps trying to renew before it steps down. */
  public Duration renewDeadline() {
    return renewDeadline;
  }

  /** How often a leader renews and a candidate retries. */
  public Duration retryPeriod() {
    return retryPeriod;
  }

  /**
   * Candidates between looks, and leaders between renewals, wait a random time between retryPeriod
   * and jitter × retryPeriod.
   */
  public double jitter() {
    return jitter;
  }

  /** How long one lock call may take before it counts as failed and is cancelled. */
  public Duration callTimeout() {
    return callTimeout;
  }

  /** The cap on the back-off after consecutive errors. */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /** How long {@code close()} waits for the stop callback and the release. */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  /** How far past leaseDuration a leader may go without renewing before it reports unhealthy. */
  public Duration healthTolerance() {
    return healthTolerance;
  }

  /** Whether closing a leader releases the lock so a successor takes over at once. */
  public boolean releaseOnClose() {
    return releaseOnClose;
  }

  /** Whether a candidate watches a {@link WatchableLock} instead of polling it. */
  public boolean watchWhenFollowing() {
    return watchWhenFollowing;
  }

  /** The monotonic clock that judges durations. */
  public MonotonicClock clock() {
    return clock;
  }

  /** The wall clock used only for timestamps written into records. */
  public Clock wallClock() {
    return wallClock;
  }

  /** The scheduler, or empty for the shared default. */
  public Optional<Scheduler> scheduler() {
    return Optional.ofNullable(scheduler);
  }

  /** The callback executor, or empty for the shared default. */
  public Optional<Executor> callbackExecutor() {
    return Optional.ofNullable(callbackExecutor);
  }

  /**
   * The listener set with {@link Builder#listener}, or {@link ElectorListener#NONE}. The elector
   * also notifies the lock's own listener after it when the lock is a {@link ListeningLock} (a
   * Kubernetes lock recording Events, for example); that one is not part of this value, so a copy
   * made with {@code listener(config.listener())} does not notify it twice.
   */
  public ElectorListener listener() {
    return listener;
  }

  /** The listener the elector notifies: the configured one, then the lock's own. */
  ElectorListener notifiedListener() {
    return notified;
  }

  private static ElectorListener withLockListener(ElectorListener configured, LeaderLock lock) {
    if (!(lock instanceof ListeningLock listening)) {
      return configured;
    }
    ElectorListener own =
        Objects.requireNonNull(
            listening.electorListener(), "electorListener() of " + lock.describe());
    if (own == ElectorListener.NONE) {
      return configured;
    }
    if (configured == ElectorListener.NONE) {
      return own;
    }
    return Listeners.both(configured, own);
  }

  /** Candidacy starts when this completes normally. */
  public CompletionStage<?> readinessGate() {
    return readinessGate;
  }

  /** The source of jitter, or empty for a fresh one per elector. */
  public Optional<RandomGenerator> random() {
    return Optional.ofNullable(random);
  }

  @Override
  public String toString() {
    return "ElectorConfig{lock="
        + (lock == null ? null : lock.describe())
        + ", identity="
        + (lock == null ? null : lock.identity())
        + ", leaseDuration="
        + leaseDuration
        + ", renewDeadline="
        + renewDeadline
        + ", retryPeriod="
        + retryPeriod
        + ", jitter="
        + jitter
        + ", callTimeout="
        + callTimeout
        + ", maxBackoff="
        + maxBackoff
        + ", releaseOnClose="
        + releaseOnClose
        + ", watchWhenFollowing="
        + watchWhenFollowing
        + '}';
  }

  /**
   * Builds an {@link ElectorConfig}. Setters reject null at once; values are checked in build().
   */
  public static final class Builder {
    private @Nullable LeaderLock lock;
    private @Nullable LeaderCallbacks callbacks;
    private Duration leaseDuration = DEFAULT_LEASE_DURATION;
    private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
    private Duration retryPeriod = DEFAULT_RETRY_PERIOD;
    private double jitter = DEFAULT_JITTER;
    private @Nullable Duration callTimeout;
    private @Nullable Duration maxBackoff;
    private @Nullable Duration closeTimeout;
    private @Nullable Duration healthTolerance;
    private boolean releaseOnClose = true;
    private boolean watchWhenFollowing = true;
    private MonotonicClock clock = MonotonicClock.system();
    private Clock wallClock = Clock.systemUTC();
    private @Nullable Scheduler scheduler;
    private @Nullable Executor callbackExecutor;
    private ElectorListener listener = ElectorListener.NONE;
    private CompletionStage<?> readinessGate = CompletableFuture.completedFuture(null);
    private @Nullable RandomGenerator random;

    private Builder() {}

    /** The lock to contend for (required). The lock's identity is the candidate's. */
    public Builder lock(LeaderLock lock) {
      this.lock = Objects.requireNonNull(lock, "lock");
      return this;
    }

    /** The callbacks (required). */
    public Builder callbacks(LeaderCallbacks callbacks) {
      this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
      return this;
    }

    /** Lease duration; default 15 s. Backends store whole seconds, rounded up. */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
      return this;
    }

    /** Renew deadline; default 10 s; must be shorter than leaseDuration. */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = Objects.requireNonNull(renewDeadline, "renewDeadline");
      return this;
    }

    /** Retry period; default 2 s; jitter × retryPeriod must be shorter than renewDeadline. */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
      return this;
    }

    /** Jitter factor, at least 1.0; default 1.2. */
    public Builder jitter(double jitter) {
      this.jitter = jitter;
      return this;
    }

    /**
     * How long the elector waits for one lock call; default renewDeadline / 2 (5 s with the default
     * renewDeadline); at most renewDeadline, so that a call that hangs cannot outlive a term.
     *
     * <p>A call without an answer by then counts as a failed call with a {@code TIMEOUT} failure,
     * and the elector cancels it: a lock that honours cancellation (see {@link LeaderLock}) stops
     * its I/O then. The elector tells the lock this timeout when it is created ({@link
     * LeaderLock#useCallTimeout}), so one deadline bounds each call: the Kubernetes locks derive
     * their requestTimeout from it when it is not set, and reject one set longer than callTimeout
     * (the elector would cancel every request that needs that long). A shorter requestTimeout makes
     * a slow request fail, and the elector try again, sooner.
     */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
      return this;
    }

    /** Cap on the error back-off; default 16 s or retryPeriod if longer; at least retryPeriod. */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
      return this;
    }

    /**
     * How long close() waits for the stop callback and the release; default renewDeadline. A lock
     * call still in flight when close() stops waiting is cancelled, as one past callTimeout is.
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = Objects.requireNonNull(closeTimeout, "closeTimeout");
      return this;
    }

    /** Tolerance past leaseDuration before a leader reports unhealthy; default retryPeriod. */
    public Builder healthTolerance(Duration healthTolerance) {
      this.healthTolerance = Objects.requireNonNull(healthTolerance, "healthTolerance");
      return this;
    }

    /** Whether closing a leader releases the lock; default true. */
    public Builder releaseOnClose(boolean releaseOnClose) {
      this.releaseOnClose = releaseOnClose;
      return this;
    }

    /** Whether to watch a {@link WatchableLock} instead of polling it; default true. */
    public Builder watchWhenFollowing(boolean watchWhenFollowing) {
      this.watchWhenFollowing = watchWhenFollowing;
      return this;
    }

    /** Monotonic clock; default {@link MonotonicClock#system()}. Intended for tests. */
    public Builder clock(MonotonicClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Wall clock for record timestamps; default {@link Clock#systemUTC()}. */
    public Builder wallClock(Clock wallClock) {
      this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
      return this;
    }

    /** Scheduler for the election loop; default a shared pool of two daemon threads. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Executor for callbacks; default a shared pool of daemon threads that runs callbacks on one
     * thread while they return quickly and adds a thread whenever the oldest waiting callback has
     * waited 100 ms behind busy ones (a callback that blocks holds the others back by at most
     * that).
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      this.callbackExecutor = Objects.requireNonNull(callbackExecutor, "callbackExecutor");
      return this;
    }

    /** Metrics listener; default none. */
    public Builder listener(ElectorListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Candidacy waits until this completes, for example until caches are synced. */
    public Builder readinessGate(CompletionStage<?> readinessGate) {
      this.readinessGate = Objects.requireNonNull(readinessGate, "readinessGate");
      return this;
    }

    /** Source of jitter; default a new generator per elector. For deterministic tests. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * Checks every rule and builds the configuration.
     *
     * @throws ElectorConfigException listing every violation and how to fix it
     */
    public ElectorConfig build() {
      List<String> problems = new ArrayList<>();
      if (lock == null) {
        problems.add("lock is missing; set lock(...) to a Lease, ConfigMap or in-memory lock");
      } else {
        String identity = lock.identity();
        if (identity == null || identity.isBlank()) {
          problems.add(
              "identity of "
                  + lock.describe()
                  + " is blank; give every candidate a unique"
                  + " identity, for example the pod name with a per-process suffix");
        }
      }
      if (callbacks == null) {
        problems.add("callbacks are missing; set callbacks(LeaderCallbacks.of(onStart, onStop))");
      }
      boolean leaseOk = positive(problems, "leaseDuration", leaseDuration);
      boolean renewOk = positive(problems, "renewDeadline", renewDeadline);
      boolean retryOk = positive(problems, "retryPeriod", retryPeriod);
      boolean backoffOk = maxBackoff == null || positive(problems, "maxBackoff", maxBackoff);
      boolean callTimeoutOk = callTimeout == null || positive(problems, "callTimeout", callTimeout);
      if (closeTimeout != null) {
        positive(problems, "closeTimeout", closeTimeout);
      }
      if (healthTolerance != null && healthTolerance.isNegative()) {
        problems.add("healthTolerance " + healthTolerance + " is negative; use zero or more");
      }
      boolean jitterValid = Double.isFinite(jitter) && jitter >= 1.0 && jitter <= 10.0;
      if (!jitterValid) {
        problems.add("jitter " + jitter + " must be between 1.0 and 10.0; the default is 1.2");
      }
      if (leaseOk && renewOk && renewDeadline.compareTo(leaseDuration) >= 0) {
        problems.add(
            "renewDeadline "
                + renewDeadline
                + " must be shorter than leaseDuration "
                + leaseDuration
                + "; raise leaseDuration or lower renewDeadline");
      }
      if (renewOk && retryOk) {
        if (jitterValid) {
          long jitteredNanos = (long) (jitter * retryPeriod.toNanos());
          if (renewDeadline.toNanos() <= jitteredNanos) {
            problems.add(
                "renewDeadline "
                    + renewDeadline
                    + " must be longer than jitter "
                    + jitter
                    + " x retryPeriod "
                    + retryPeriod
                    + " = "
                    + Duration.ofNanos(jitteredNanos)
                    + "; raise renewDeadline or lower retryPeriod");
          }
        }
        if (callTimeoutOk && callTimeout != null && callTimeout.compareTo(renewDeadline) > 0) {
          problems.add(
              "callTimeout "
                  + callTimeout
                  + " must not exceed renewDeadline "
                  + renewDeadline
                  + ", or a hung call could outlive a term; lower callTimeout");
        }
        if (backoffOk && maxBackoff != null && maxBackoff.compareTo(retryPeriod) < 0) {
          problems.add(
              "maxBackoff "
                  + maxBackoff
                  + " must be at least retryPeriod "
                  + retryPeriod
                  + "; raise maxBackoff");
        }
      }
      // A missing lock or callbacks is among the problems.
      if (!problems.isEmpty() || lock == null || callbacks == null) {
        throw new ElectorConfigException(problems);
      }
      return new ElectorConfig(this, lock, callbacks);
    }

    private static boolean positive(List<String> problems, String name, Duration value) {
      if (value.isZero() || value.isNegative()) {
        problems.add(
            name + " " + value + " must be positive; use a duration such as " + defaultFor(name));
        return false;
      }
      return true;
    }

    private static String defaultFor(String name) {
      switch (name) {
        case "leaseDuration":
          return DEFAULT_LEASE_DURATION + " (the default)";
        case "renewDeadline":
          return DEFAULT_RENEW_DEADLINE + " (the default)";
        case "retryPeriod":
          return DEFAULT_RETRY_PERIOD + " (the default)";
        case "maxBackoff":
          return DEFAULT_MAX_BACKOFF + " (the default)";
        default:
          return "PT5S";
      }
    }
  }
}
