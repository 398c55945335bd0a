package dev.elector.testenv;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Waits for a condition on a real server with Awaitility, checking at once and then every 20 ms on
 * the calling thread, and fails with {@code what} when it does not hold within the timeout. For
 * tests against real time only; virtual-time tests advance their clock instead.
 */
public final class Await {
  private static final Duration POLL = Duration.ofMillis(20);

  private Await() {}

  /**
   * Returns the time it took once {@code condition} is true; exceptions from it count as false.
   *
   * @throws AssertionError if it is not true within {@code timeout}, naming {@code what} and the
   *     last exception of the condition, if any
   */
  public static Duration until(String what, Duration timeout, Callable<Boolean> condition) {
    AtomicReference<@Nullable Exception> last = new AtomicReference<>();
    long start = System.nanoTime();
    try {
      Awaitility.await(what)
          .atMost(timeout)
          .pollDelay(Duration.ZERO)
          .pollInterval(POLL)
          .pollInSameThread()
          .until(
              () -> {
                try {
                  return Boolean.TRUE.equals(condition.call());
                } catch (Exception e) {
                  last.set(e);
                  return false;
                }
              });
    } catch (ConditionTimeoutException timedOut) {
      Exception error = last.get();
      AssertionError failure =
          new AssertionError(
              "not within "
                  + timeout
                  + ": "
                  + what
                  + (error != null ? " (last error: " + error + ")" : ""));
      failure.initCause(error != null ? error : timedOut);
      throw failure;
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
