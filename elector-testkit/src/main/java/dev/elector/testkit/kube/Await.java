package dev.elector.testkit.kube;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for a condition on a real server, checking every 20 ms, and fails with {@code what} when it
 * does not hold within the timeout. For tests against real time only; virtual-time tests advance
 * their clock instead.
 */
public final class Await {
  private Await() {}

  /**
   * Returns the time it took once {@code condition} is true; exceptions from it count as false.
   *
   * @throws AssertionError if it is not true within {@code timeout}
   */
  public static Duration until(String what, Duration timeout, Callable<Boolean> condition) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        if (Boolean.TRUE.equals(condition.call())) {
          return Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() - deadline >= 0) {
        AssertionError error =
            new AssertionError(
                "not within "
                    + timeout
                    + ": "
                    + what
                    + (last != null ? " (last error: " + last + ")" : ""));
        if (last != null) {
          error.initCause(last);
        }
        throw error;
      }
      LockSupport.parkNanos(20_000_000L);
    }
  }
}
