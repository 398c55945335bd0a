package dev.elector.testenv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Await on Awaitility: checks at once, counts exceptions as false, and names what it waited for.
 */
class AwaitTest {
  @Test
  void aConditionAlreadyTrueIsCheckedOnceOnTheCallingThread() {
    AtomicInteger calls = new AtomicInteger();
    Thread caller = Thread.currentThread();

    Await.until(
        "true at once",
        Duration.ofSeconds(5),
        () -> {
          calls.incrementAndGet();
          return Thread.currentThread() == caller;
        });

    assertEquals(1, calls.get());
  }

  @Test
  void exceptionsCountAsFalseUntilTheConditionHolds() {
    AtomicInteger calls = new AtomicInteger();

    Await.until(
        "the third call",
        Duration.ofSeconds(10),
        () -> {
          if (calls.incrementAndGet() < 3) {
            throw new IOException("not yet");
          }
          return true;
        });

    assertEquals(3, calls.get());
  }

  @Test
  void aTimeoutNamesWhatAndTheLastError() {
    IOException cause = new IOException("connection refused");

    AssertionError error =
        assertThrows(
            AssertionError.class,
            () ->
                Await.until(
                    "the server answers",
                    Duration.ofMillis(100),
                    () -> {
                      throw cause;
                    }));

    assertTrue(
        error
            .getMessage()
            .startsWith(
                "not within PT0.1S: the server answers (last error: java.io.IOException:"
                    + " connection refused)"),
        error.getMessage());
    assertSame(cause, error.getCause());
  }
}
