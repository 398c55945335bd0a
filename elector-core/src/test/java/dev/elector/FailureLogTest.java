package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LockFailure;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** What an operator sees when calls fail: reports, not a flood. */
class FailureLogTest {
  private static final long SECOND = 1_000_000_000L;
  private static final LockFailure UNAVAILABLE =
      LockFailure.of(LockFailure.Kind.UNAVAILABLE, "the API server failed");
  private static final LockFailure FORBIDDEN =
      LockFailure.of(LockFailure.Kind.FORBIDDEN, "leases is forbidden; add the rule");

  private final List<String> lines = new ArrayList<>();
  private final FailureLog failures = new FailureLog(recordingLogger(), "lock [a]");

  /** A Logger that records "LEVEL message" for the levels the failure log uses. */
  private Logger recordingLogger() {
    return (Logger)
        Proxy.newProxyInstance(
            Logger.class.getClassLoader(),
            new Class<?>[] {Logger.class},
            (proxy, method, args) -> {
              String name = method.getName();
              if (List.of("debug", "info", "warn", "error").contains(name)
                  && args != null
                  && args[0] instanceof String format) {
                Object[] values =
                    args.length == 2 && args[1] instanceof Object[] array
                        ? array
                        : java.util.Arrays.copyOfRange(args, 1, args.length);
                String text = format;
                for (Object value : values) {
                  text =
                      text.replaceFirst(
                          "\\{}", java.util.regex.Matcher.quoteReplacement(String.valueOf(value)));
                }
                lines.add(name.toUpperCase(java.util.Locale.ROOT) + " " + text);
                return null;
              }
              if (name.startsWith("is") && name.endsWith("Enabled")) {
                return true;
              }
              return name.equals("getName") ? "test" : null;
            });
  }

  private List<String> loud() {
    return lines.stream().filter(l -> !l.startsWith("DEBUG")).toList();
  }

  @Test
  void aLongStreakIsReportedOnceAMinuteWithItsLength() {
    for (long t = 0; t <= 130 * SECOND; t += SECOND / 2) {
      failures.failure("renew", UNAVAILABLE, t, "Retrying.");
    }
    failures.success("renew");

    List<String> loud = loud();
    assertEquals(4, loud.size(), String.join("\n", loud));
    assertTrue(loud.get(0).startsWith("WARN lock [a]: renew failed: UNAVAILABLE"), loud.get(0));
    assertTrue(
        loud.get(1).contains("renew failed 121 times in a row")
            && loud.get(1).contains("(119 more failures in 0 streaks"),
        loud.get(1));
    assertEquals("INFO lock [a]: renew succeeded again after 261 failures", loud.get(3));
  }

  @Test
  void flappingIsReportedOnceAMinuteNotOnceAFailure() {
    // Every other call fails for ten minutes: 600 streaks of one failure each.
    for (long t = 0; t < 600 * SECOND; t += SECOND) {
      failures.failure("renew", UNAVAILABLE, t, "Retrying.");
      failures.success("renew");
    }

    List<String> loud = loud();
    assertEquals(
        20, loud.size(), "a report and its recovery per minute:\n" + String.join("\n", loud));
    assertTrue(
        loud.get(2).contains("(59 more failures in 59 streaks since the last report"), loud.get(2));
    assertEquals(1200, lines.size(), "everything else is at DEBUG");
  }

  @Test
  void aConfigurationProblemIsAnErrorNamingTheFix() {
    failures.failure("read", FORBIDDEN, 0, "Retrying with back-off.");

    assertEquals(
        List.of(
            "ERROR lock [a]: read failed: leases is forbidden; add the rule."
                + " Retrying with back-off."),
        loud());
  }

  @Test
  void aStreakThatWasNotReportedEndsQuietly() {
    failures.failure("renew", UNAVAILABLE, 0, "Retrying.");
    failures.success("renew");
    failures.failure("renew", UNAVAILABLE, SECOND, "Retrying.");
    failures.success("renew");

    assertEquals(2, loud().size(), String.join("\n", lines));
    assertTrue(lines.get(lines.size() - 1).startsWith("DEBUG"), lines.toString());
  }
}
