package dev.elector.josdk.scenarios;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/** The scenarios' figures: {@code FIGURE} lines on standard output and in one file. */
final class Figures {
  static final Path FILE = Path.of("target", "josdk-figures.txt");

  private Figures() {}

  static void print(String scenario, String name, Object value) {
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

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }
}
