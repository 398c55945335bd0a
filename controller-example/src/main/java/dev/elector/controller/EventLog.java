package dev.elector.controller;

import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Writes one line per leadership change and per change the controller makes, for tools that draw a
 * timeline: {@code EVENT <epochMillis> <KIND> identity=<id> key=value ...}. A value is written bare
 * when it has only letters, digits and {@code . _ : / @ + -}; otherwise in double quotes, with
 * {@code \} and {@code "} escaped by a backslash and line breaks written as {@code \n}. Keys are
 * fixed words. Thread-safe: each line is handed to the sink whole.
 */
final class EventLog {
  private static final Pattern BARE = Pattern.compile("[A-Za-z0-9._:/@+\\-]+");

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
   * @param kind the event kind, upper case
   * @param keyValues alternating keys and values; null values are left out
   */
  void emit(String kind, Object... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must alternate: " + keyValues.length);
    }
    StringBuilder line =
        new StringBuilder("EVENT ")
            .append(clock.millis())
            .append(' ')
            .append(kind)
            .append(" identity=")
            .append(value(identity));
    for (int i = 0; i < keyValues.length; i += 2) {
      if (keyValues[i + 1] != null) {
        line.append(' ').append(keyValues[i]).append('=').append(value(keyValues[i + 1]));
      }
    }
    String text = line.toString();
    synchronized (this) {
      sink.accept(text);
    }
  }

  static String value(Object raw) {
    String text = String.valueOf(raw);
    if (BARE.matcher(text).matches()) {
      return text;
    }
    return '"'
        + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\r", "\\r").replace("\n", "\\n")
        + '"';
  }
}
