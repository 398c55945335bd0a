package dev.elector.dhcp.agent;

import dev.elector.examples.ProcessEvent;
import dev.elector.time.MonotonicClock;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Objects;

/**
 * One line per thing an operator, a test or the demo wants to follow, on standard output (logs go
 * to standard error):
 *
 * <pre>
 * {"event":"serving","time":&lt;epoch millis&gt;,"mono":&lt;monotonic nanos&gt;,"key":"value",...}
 * </pre>
 *
 * in the examples' one event format, {@link ProcessEvent}. Kinds: {@code started}, {@code synced},
 * {@code pool}, {@code pool-absent}, {@code leading}, {@code address-added}, {@code
 * address-failed}, {@code address-removed}, {@code serving}, {@code stopped}, {@code reply}, {@code
 * unknown-client}, {@code closed}. The monotonic field is {@link System#nanoTime()}, which on Linux
 * is comparable between processes of one machine, so a test can measure from the moment it killed a
 * process to an event of another.
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
    String line = ProcessEvent.of(kind, wall.millis(), clock.nanos(), keyValues).toJson();
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }
}
