package dev.elector.demo;

import dev.elector.examples.ProcessEvent;
import java.util.Optional;

/**
 * One event of an agent or a controller process, in the examples' one event format ({@link
 * ProcessEvent}), with the process that printed it.
 *
 * @param source the process that printed it
 * @param event the event
 */
record EventLine(String source, ProcessEvent event) {

  /** Parses a line; empty if it is not an event line. */
  static Optional<EventLine> parse(String source, String line) {
    return ProcessEvent.parse(line).map(e -> new EventLine(source, e));
  }

  String kind() {
    return event.kind();
  }

  long epochMillis() {
    return event.epochMillis();
  }

  /** {@code System.nanoTime()} of the event; {@link ProcessEvent#NO_MONO} when it has none. */
  long monoNanos() {
    return event.monoNanos();
  }

  String get(String key) {
    return event.get(key);
  }
}
