package dev.elector.dhcp.agent;

import dev.elector.time.MonotonicClock;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Objects;

/**
 * One line per thing an operator, a test or the demo wants to follow, on standard output (logs go
 * to standard error):
 *
 * <pre>
 * EVENT &lt;epoch millis&gt; &lt;monotonic nanos&gt; &lt;kind&gt; key=value ...
 * </pre>
 *
 * Kinds: {@code started}, {@code synced}, {@code pool}, {@code pool-absent}, {@code leading},
 * {@code address-added}, {@code address-failed}, {@code address-removed}, {@code serving}, {@code
 * stopped}, {@code reply}, {@code unknown-client}, {@code closed}. Values never contain spaces
 * (they are replaced by {@code _}). The monotonic field is {@link System#nanoTime()}, which on
 * Linux is comparable between processes of one machine, so a test can measure from the moment it
 * killed a process to an event of another.
 */
final class AgentEvents {
  private final PrintStream out;
  private final Clock wall;
  private final MonotonicClock clock;
  private final boolean enabled;

  AgentEvents(PrintStream out, Clock wall, MonotonicClock clock, boolean enabled) {
    this.out = Objects.requireNonNull(out, "out");
    this.wall = Objects.requireNonNull(wall, "wall");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.enabled = enabled;
  }

  /** Prints one event; {@code keyValues} alternate key and value. */
  void emit(String kind, Object... keyValues) {
    if (!enabled) {
      return;
    }
    StringBuilder line =
        new StringBuilder(96)
            .append("EVENT ")
            .append(wall.millis())
            .append(' ')
            .append(clock.nanos())
            .append(' ')
            .append(kind);
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      line.append(' ')
          .append(keyValues[i])
          .append('=')
          .append(String.valueOf(keyValues[i + 1]).replaceAll("\\s", "_"));
    }
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }
}
