package dev.elector.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Measured figures of the scenarios: printed, and appended to target/reliability-figures.txt so
 * RELIABILITY.md can be written from one run.
 */
final class Figures {
  private static final Path FILE = Path.of("target", "reliability-figures.txt");

  private Figures() {}

  static void record(String scenario, String name, Object value) {
    String line = String.format(Locale.ROOT, "FIGURE %s %s %s", scenario, name, value);
    System.out.println(line);
    try {
      Files.createDirectories(FILE.getParent());
      Files.writeString(
          FILE,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.out.println("could not write " + FILE + ": " + e);
    }
  }

  static String millis(java.time.Duration d) {
    return d.toMillis() + " ms";
  }

  static String perSecond(long count, java.time.Duration over) {
    return String.format(Locale.ROOT, "%.2f/s", count * 1e9 / over.toNanos());
  }
}
