package dev.elector.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** How the demo waits for the API server: Awaitility, turned into a message that says what. */
final class Waits {
  private Waits() {}

  /**
   * Asks {@code probe} until it finds something, and returns it.
   *
   * @throws IOException saying that {@code what} did not happen within {@code limit}
   */
  static <T> T until(String what, Duration limit, Callable<Optional<T>> probe) throws IOException {
    AtomicReference<T> found = new AtomicReference<>();
    try {
      Awaitility.await(what)
          .atMost(limit)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                Optional<T> value = probe.call();
                value.ifPresent(found::set);
                return value.isPresent();
              });
    } catch (ConditionTimeoutException e) {
      throw new IOException(what + " did not happen within " + limit, e);
    }
    return found.get();
  }
}
