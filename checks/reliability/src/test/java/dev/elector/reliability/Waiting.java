package dev.elector.reliability;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * How the scenarios wait, on Awaitility: for something to happen, or through an observation window
 * during which an invariant must hold. Probes run on the calling thread; an AssertionError they
 * throw fails at once.
 */
final class Waiting {
  private Waiting() {}

  /**
   * Asks {@code probe} every {@code poll} until it finds something, and returns it.
   *
   * @throws AssertionError with {@code timedOut}'s text when nothing is found within {@code limit}
   */
  static <T> T until(
      Duration limit, Duration poll, Callable<Optional<T>> probe, Supplier<String> timedOut) {
    try {
      return Awaitility.await()
          .atMost(limit)
          .pollDelay(Duration.ZERO)
          .pollInterval(poll)
          .pollInSameThread()
          .until(probe, Optional::isPresent)
          .orElseThrow();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(timedOut.get(), e);
    }
  }

  /**
   * Returns once {@code window} has passed, checking {@code holds} every {@code poll} meanwhile;
   * its AssertionError fails at once.
   */
  static void throughout(Duration window, Duration poll, Runnable holds) {
    long end = System.nanoTime() + window.toNanos();
    Awaitility.await()
        .atMost(window.plusSeconds(10))
        .pollDelay(Duration.ZERO)
        .pollInterval(poll)
        .pollInSameThread()
        .until(
            () -> {
              holds.run();
              return System.nanoTime() - end >= 0;
            });
  }
}
