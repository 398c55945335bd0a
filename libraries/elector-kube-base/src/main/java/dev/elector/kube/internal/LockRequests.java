package dev.elector.kube.internal;

import dev.elector.lock.LockFailure;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a lock's requests on its executor, each within one deadline: the request's timeout after the
 * call. A request that waited that long for a thread is not sent; one that gets a thread has what
 * is left. Cancelling the returned stage, as the elector does with a call it stopped waiting for,
 * aborts the request: one still waiting for a thread is never sent, and one in flight ends at once,
 * which frees its thread.
 */
final class LockRequests {
  private static final Logger log = LoggerFactory.getLogger(ObjectLock.class);

  private final Executor executor;
  private final MonotonicClock clock;
  private final String lock;

  /**
   * @param lock what messages call the lock, such as {@code Lease ns/name}
   */
  LockRequests(Executor executor, MonotonicClock clock, String lock) {
    this.executor = executor;
    this.clock = clock;
    this.lock = lock;
  }

  /**
   * Runs {@code work} with what is left of {@code timeout} when it gets a thread; any failure to
   * run it becomes {@code failed}'s answer.
   */
  <T> CompletionStage<T> run(
      Duration timeout, BiFunction<Abort, Duration, T> work, Function<LockFailure, T> failed) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Abort abort = new Abort();
    // Runs on the canceller's thread; aborting only signals the transport, it never blocks.
    var unused =
        result.whenComplete(
            (value, error) -> {
              if (result.isCancelled()) {
                abort.abort();
              }
            });
    long queued = clock.nanos();
    try {
      executor.execute(
          () -> {
            if (abort.aborted()) {
              return; // cancelled while it waited for a thread: nobody waits for it any more
            }
            long waited = clock.nanos() - queued;
            if (waited >= timeout.toNanos()) { // its deadline has passed: do not send it
              result.complete(failed.apply(notSent(waited, timeout)));
              return;
            }
            try {
              result.complete(work.apply(abort, timeout.minusNanos(waited)));
            } catch (RuntimeException e) {
              log.debug("{}: request failed unexpectedly", lock, e);
              result.complete(
                  failed.apply(
                      new LockFailure(
                          LockFailure.Kind.UNEXPECTED, "request on " + lock + " failed: " + e, e)));
            }
          });
    } catch (RejectedExecutionException e) {
      result.complete(
          failed.apply(
              new LockFailure(
                  LockFailure.Kind.UNEXPECTED,
                  "the executor of " + lock + " rejected the request: " + e,
                  e)));
    }
    return result;
  }

  private LockFailure notSent(long waitedNanos, Duration timeout) {
    return LockFailure.of(
        LockFailure.Kind.TIMEOUT,
        "the request on "
            + lock
            + " waited "
            + waitedNanos / 1_000_000
            + " ms for a thread of the lock's"
            + " executor, longer than its deadline "
            + timeout
            + ", and was not sent;"
            + " the executor has too few threads for the requests at once, or the API server"
            + " answers slowly");
  }
}
