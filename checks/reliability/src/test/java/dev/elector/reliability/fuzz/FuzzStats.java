package dev.elector.reliability.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Counts what one fuzz target saw and prints one summary line when it ends: executions, rate, what
 * share decoded, the outcomes reached, and the size of the corpus Jazzer generated. libFuzzer's own
 * final figures (coverage, {@code stat::*}) appear just before it on standard error.
 */
final class FuzzStats {
  private final String target;
  private final String method;
  private final Map<String, Long> events = new TreeMap<>();
  private long executions;
  private long decoded;
  private long firstNanos;

  FuzzStats(Class<?> target, String method) {
    this.target = target.getName();
    this.method = method;
  }

  /** Counts one run of the target; the fuzzer runs targets on one thread. */
  void execution() {
    if (executions++ == 0) {
      firstNanos = System.nanoTime();
    }
  }

  void decoded() {
    decoded++;
  }

  void event(String name) {
    events.merge(name, 1L, Long::sum);
  }

  /** Returns the summary line. */
  String summary() {
    double seconds = executions == 0 ? 0 : (System.nanoTime() - firstNanos) / 1e9;
    String mode = System.getenv("JAZZER_FUZZ") == null ? "regression (seeds only)" : "fuzzing";
    return String.format(
        "FUZZ %s#%s %s: %d executions in %.1f s (%.0f/s), %d decoded (%.1f%%), outcomes %s, %s",
        target.substring(target.lastIndexOf('.') + 1),
        method,
        mode,
        executions,
        seconds,
        seconds > 0 ? executions / seconds : 0,
        decoded,
        executions == 0 ? 0 : 100.0 * decoded / executions,
        events,
        corpus());
  }

  private String corpus() {
    String base = System.getProperty("jazzer.internal.basedir");
    if (base == null) {
      return "no generated corpus";
    }
    Path dir = Path.of(base, ".cifuzz-corpus", target, method);
    if (!Files.isDirectory(dir)) {
      return "no generated corpus in " + dir;
    }
    try (Stream<Path> files = Files.list(dir)) {
      long[] countAndBytes = new long[2];
      files.forEach(
          f -> {
            countAndBytes[0]++;
            countAndBytes[1] += f.toFile().length();
          });
      return "generated corpus "
          + countAndBytes[0]
          + " inputs, "
          + countAndBytes[1]
          + " bytes in "
          + dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
