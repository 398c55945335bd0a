package dev.elector.testkit;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Wraps a lock and injects faults into one candidate's calls: failures (always, or with a
 * probability), latency, calls that never answer, and spurious conflicts. Every call is logged with
 * its time so tests can check call rates. Latency is served by the given scheduler, so it is
 * virtual under {@link VirtualTime}. While the lock fails or hangs every call (a partition), watch
 * events are dropped too; {@link #breakWatches} breaks only the watch.
 *
 * <p>If the wrapped lock cannot be watched, neither can this one: electors poll. Thread-safe.
 */
public final class FaultyLock implements LeaderLock {
  /** One call as the candidate made it. */
  public record Call(long atNanos, String kind) {}

  private final LeaderLock delegate;
  private final Scheduler scheduler;
  private final MonotonicClock clock;
  private final List<Call> calls = new ArrayList<>();
  private LockFailure.@Nullable Kind failAll;
  private LockFailure.@Nullable Kind failWrites;
  private double failureProbability;
  private LockFailure.Kind probabilisticKind = LockFailure.Kind.UNAVAILABLE;
  private SplittableRandom random = new SplittableRandom(1);
  private long latencyNanos;
  private long oneWayNanos;
  private boolean hang;
  private int conflictsToInject;
  private final List<Consumer<LockRead>> watchers = new ArrayList<>();
  private @Nullable LockFailure watchBroken;

  /**
   * Wraps {@code delegate}; injected latency and hangs are served by {@code scheduler}, and calls
   * are logged with the time of {@code clock}. Injects nothing until told to.
   */
  public FaultyLock(LeaderLock delegate, Scheduler scheduler, MonotonicClock clock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Wraps {@code delegate} on virtual time. */
  public static FaultyLock wrap(LeaderLock delegate, VirtualTime time) {
    return new FaultyLock(delegate, time.scheduler(), time.clock());
  }

  /** Every call fails with {@code kind} until {@link #heal()}. */
  public synchronized FaultyLock failAll(LockFailure.Kind kind) {
    this.failAll = Objects.requireNonNull(kind, "kind");
    return this;
  }

  /**
   * Every create and update fails with {@code kind} until {@link #heal()}, while reads pass: for
   * example an identity that may read the lock but not write it.
   */
  public synchronized FaultyLock failWrites(LockFailure.Kind kind) {
    this.failWrites = Objects.requireNonNull(kind, "kind");
    return this;
  }

  /** Each call fails with probability {@code p}, drawn from {@code seed}. */
  public synchronized FaultyLock failRandomly(double p, LockFailure.Kind kind, long seed) {
    this.failureProbability = p;
    this.probabilisticKind = kind;
    this.random = new SplittableRandom(seed);
    return this;
  }

  /** Every answer arrives {@code latency} late. */
  public synchronized FaultyLock latency(Duration latency) {
    this.latencyNanos = latency.toNanos();
    return this;
  }

  /**
   * A slow link: every call reaches the lock {@code oneWay} late and its answer takes as long
   * again, and every watch event arrives {@code oneWay} late. A write may so land after the
   * candidate gave up waiting for its answer.
   */
  public synchronized FaultyLock slowLink(Duration oneWay) {
    this.oneWayNanos = oneWay.toNanos();
    return this;
  }

  /** No call ever answers until {@link #heal()}. */
  public synchronized FaultyLock hang() {
    this.hang = true;
    return this;
  }

  /** The next {@code count} writes answer with a conflict without reaching the lock. */
  public synchronized FaultyLock injectConflicts(int count) {
    this.conflictsToInject = count;
    return this;
  }

  /**
   * Breaks every watch of this lock, as a watch refused with {@code kind} would: each listener gets
   * a {@link LockFailure} now, and events are dropped until {@link #mendWatches()}. Calls pass.
   */
  public FaultyLock breakWatches(LockFailure.Kind kind) {
    LockFailure failure =
        LockFailure.of(
            Objects.requireNonNull(kind, "kind"), "watch of " + describe() + " broken by the test");
    List<Consumer<LockRead>> listeners;
    synchronized (this) {
      watchBroken = failure;
      listeners = List.copyOf(watchers);
    }
    listeners.forEach(l -> l.accept(failure));
    return this;
  }

  /**
   * Lets watch events through again after {@link #breakWatches}, and hands each watcher the lock's
   * current state, as a watch that reconnects lists again.
   */
  public FaultyLock mendWatches() {
    List<Consumer<LockRead>> listeners;
    synchronized (this) {
      watchBroken = null;
      listeners = List.copyOf(watchers);
    }
    if (!listeners.isEmpty() && !partitioned()) {
      delegate
          .read(Duration.ofSeconds(1))
          .thenAccept(
              state -> {
                if (!(state instanceof LockFailure)) {
                  listeners.forEach(l -> l.accept(state));
                }
              });
    }
    return this;
  }

  /** Removes every fault. */
  public synchronized FaultyLock heal() {
    failAll = null;
    failWrites = null;
    failureProbability = 0;
    latencyNanos = 0;
    oneWayNanos = 0;
    hang = false;
    conflictsToInject = 0;
    return this;
  }

  /** The calls made so far. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls made in [from, to) nanos. */
  public synchronized long callsBetween(long fromNanos, long toNanos) {
    return calls.stream().filter(c -> c.atNanos() >= fromNanos && c.atNanos() < toNanos).count();
  }

  /** The largest number of calls in any window of {@code window} length. */
  public synchronized long maxCallsInAnyWindow(Duration window) {
    long width = window.toNanos();
    long best = 0;
    int start = 0;
    for (int end = 0; end < calls.size(); end++) {
      while (calls.get(end).atNanos() - calls.get(start).atNanos() >= width) {
        start++;
      }
      best = Math.max(best, end - start + 1);
    }
    return best;
  }

  @Override
  public CompletionStage<LockRead> read(Duration timeout) {
    return run("read", () -> delegate.read(timeout), failure -> failure, false);
  }

  @Override
  public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
    return run("create", () -> delegate.create(record, timeout), failure -> failure, true);
  }

  @Override
  public CompletionStage<LockWrite> update(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    return run(
        "update",
        () -> delegate.update(expectedVersion, record, timeout),
        failure -> failure,
        true);
  }

  @Override
  public Optional<Closeable> watch(Consumer<LockRead> listener) {
    synchronized (this) {
      watchers.add(listener);
    }
    Optional<Closeable> watch =
        delegate.watch(
            event -> {
              if (partitioned() || watchBroken()) {
                return;
              }
              long oneWay = oneWay();
              if (oneWay == 0) {
                listener.accept(event);
              } else {
                later(() -> listener.accept(event), oneWay);
              }
            });
    if (watch.isEmpty()) {
      synchronized (this) {
        watchers.remove(listener);
      }
      return Optional.empty();
    }
    Closeable inner = watch.get();
    return Optional.of(
        () -> {
          synchronized (this) {
            watchers.remove(listener);
          }
          inner.close();
        });
  }

  @Override
  public String identity() {
    return delegate.identity();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  private synchronized long oneWay() {
    return oneWayNanos;
  }

  private synchronized boolean watchBroken() {
    return watchBroken != null;
  }

  private synchronized boolean partitioned() {
    return hang || failAll != null;
  }

  private <T> CompletionStage<T> run(
      String kind,
      Supplier<CompletionStage<T>> call,
      Function<LockFailure, T> failure,
      boolean write) {
    LockFailure.Kind failWith;
    boolean never;
    long delay;
    long oneWay;
    boolean conflict = false;
    synchronized (this) {
      calls.add(new Call(clock.nanos(), kind));
      never = hang;
      delay = latencyNanos;
      oneWay = oneWayNanos;
      failWith = failAll != null ? failAll : write ? failWrites : null;
      if (failWith == null && failureProbability > 0 && random.nextDouble() < failureProbability) {
        failWith = probabilisticKind;
      }
      if (failWith == null && write && conflictsToInject > 0) {
        conflictsToInject--;
        conflict = true;
      }
    }
    if (never) {
      return new CompletableFuture<>();
    }
    CompletionStage<T> result;
    if (failWith != null) {
      result =
          CompletableFuture.completedFuture(
              failure.apply(LockFailure.of(failWith, "injected " + failWith + " on " + kind)));
    } else if (conflict) {
      @SuppressWarnings("unchecked")
      T injected = (T) new LockWrite.Conflict("injected conflict");
      result = CompletableFuture.completedFuture(injected);
    } else if (oneWay > 0) {
      CompletableFuture<T> arrived = new CompletableFuture<>();
      later(
          () ->
              call.get()
                  .whenComplete(
                      (value, error) -> {
                        if (error != null) {
                          arrived.completeExceptionally(error);
                        } else {
                          arrived.complete(value);
                        }
                      }),
          oneWay);
      result = arrived;
    } else {
      result = call.get();
    }
    long answerDelay = delay + oneWay; // a slow link is slow both ways
    if (answerDelay == 0) {
      return result;
    }
    CompletableFuture<T> late = new CompletableFuture<>();
    result.whenComplete(
        (value, error) ->
            later(
                () -> {
                  if (error != null) {
                    late.completeExceptionally(error);
                  } else {
                    late.complete(value);
                  }
                },
                answerDelay));
    return late;
  }

  /** Runs {@code task} after {@code delayNanos} of the injected time; never cancelled. */
  private void later(Runnable task, long delayNanos) {
    var unused = scheduler.schedule(task, delayNanos);
  }
}
