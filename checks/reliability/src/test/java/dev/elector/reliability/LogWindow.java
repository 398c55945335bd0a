package dev.elector.reliability;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The log lines written by this JVM's candidates since the window opened. slf4j-simple writes them
 * to the file named by {@code org.slf4j.simpleLogger.logFile} (set in this module's pom).
 */
final class LogWindow {
  private final Path file;
  private final long start;

  private LogWindow(Path file, long start) {
    this.file = file;
    this.start = start;
  }

  static LogWindow open() throws IOException {
    String name = System.getProperty("org.slf4j.simpleLogger.logFile");
    if (name == null || name.equals("System.err") || name.equals("System.out")) {
      throw new IllegalStateException("set org.slf4j.simpleLogger.logFile to count log lines");
    }
    Path file = Path.of(name);
    return new LogWindow(file, Files.exists(file) ? Files.size(file) : 0);
  }

  /** The lines written since the window opened. */
  List<String> lines() throws IOException {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      byte[] bytes = new byte[(int) Math.max(0, length - start)];
      in.seek(start);
      in.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      return text.isEmpty()
          ? List.of()
          : Arrays.stream(text.split("\n")).filter(l -> !l.isBlank()).toList();
    }
  }

  /** The lines at WARN or ERROR since the window opened. */
  List<String> warnings() throws IOException {
    return lines().stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
  }
}
