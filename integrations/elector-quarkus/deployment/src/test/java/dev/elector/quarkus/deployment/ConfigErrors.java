package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

/** What the config error tests share. */
final class ConfigErrors {
  private static final String LINE = "\n  - ";

  private ConfigErrors() {}

  /** The deepest cause of a startup failure: what the extension or SmallRye Config threw. */
  static Throwable cause(Throwable thrown) {
    Throwable cause = thrown;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * The problem lines of the extension's message, after checking its header counts {@code count}.
   */
  static List<String> problems(String message, int count) {
    String header =
        "Invalid quarkus.elector configuration ("
            + count
            + (count == 1 ? " problem):" : " problems):");
    assertEquals(
        header, message.substring(0, Math.min(message.length(), header.length())), message);
    List<String> lines = new ArrayList<>();
    int from = message.indexOf(LINE);
    while (from >= 0) {
      int next = message.indexOf(LINE, from + LINE.length());
      lines.add(message.substring(from + LINE.length(), next < 0 ? message.length() : next));
      from = next;
    }
    assertEquals(count, lines.size(), message);
    return lines;
  }

  /** The property each problem line names first: the text up to its first space or comma. */
  static List<String> properties(List<String> lines) {
    List<String> properties = new ArrayList<>();
    for (String line : lines) {
      int end = 0;
      while (end < line.length() && line.charAt(end) != ' ' && line.charAt(end) != ',') {
        end++;
      }
      properties.add(line.substring(0, end));
    }
    return properties;
  }
}
