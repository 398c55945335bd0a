package dev.elector.josdk.scenarios;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * One replica's event lines on standard output, {@code EVENT <nanos> KIND identity=ID
 * key=value...}, with the monotonic time of the machine, so a test reading several replicas' lines
 * can put them on one time line (System.nanoTime shares its origin across the processes of one
 * Linux machine).
 */
final class Events {
  private final String identity;
  private final PrintStream out;
  private final LongSupplier nanos;

  Events(String identity, PrintStream out, LongSupplier nanos) {
    this.identity = identity;
    this.out = out;
    this.nanos = nanos;
  }

  long now() {
    return nanos.getAsLong();
  }

  /** Prints {@code kind} now, with {@code fields} given as alternating keys and values. */
  void print(String kind, Object... fields) {
    printAt(nanos.getAsLong(), kind, fields);
  }

  void printAt(long at, String kind, Object... fields) {
    StringBuilder line =
        new StringBuilder("EVENT ")
            .append(at)
            .append(' ')
            .append(kind)
            .append(" identity=")
            .append(identity);
    for (int i = 0; i + 1 < fields.length; i += 2) {
      line.append(' ').append(fields[i]).append('=').append(fields[i + 1]);
    }
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }
}
