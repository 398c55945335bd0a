package dev.elector.controller;

import dev.elector.examples.ProcessEvent;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Writes one line per leadership change and per change the controller makes, for tools that draw a
 * timeline, in the examples' one event format ({@link ProcessEvent}): {@code
 * {"event":"allocated","time":<epochMillis>,"identity":"<id>","key":"value",...}}. The kind is
 * written in lower case; keys are fixed words; a null value leaves its key out. Thread-safe: each
 * line is handed to the sink whole.
 */
final class EventLog {
  private final Consumer<String> sink;
  private final Clock clock;
  private final String identity;

  EventLog(Consumer<String> sink, Clock clock, String identity) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.identity = Objects.requireNonNull(identity, "identity");
  }

  /**
   * Emits one line.
   *
   * @param kind the event kind
   * @param keyValues alternating keys and values; null values are left out
   */
  void emit(String kind, Object... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must alternate: " + keyValues.length);
    }
    Object[] all = new Object[keyValues.length + 2];
    all[0] = "identity";
    all[1] = identity;
    System.arraycopy(keyValues, 0, all, 2, keyValues.length);
    String text =
        ProcessEvent.of(kind.toLowerCase(Locale.ROOT), clock.millis(), ProcessEvent.NO_MONO, all)
            .toJson();
    synchronized (this) {
      sink.accept(text);
    }
  }
}
