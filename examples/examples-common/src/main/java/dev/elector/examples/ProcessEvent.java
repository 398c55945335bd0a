package dev.elector.examples;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One event an example process prints on standard output for tools that follow it (the demo's
 * timeline, the tests): one JSON object per line,
 *
 * <pre>
 * {"event":"leading","time":1700000000123,"mono":52345678901,"identity":"replica-a","token":"3"}
 * </pre>
 *
 * {@code event} is the kind, {@code time} the wall clock in epoch milliseconds, {@code mono} (left
 * out when the process has none) {@link System#nanoTime()}, which on Linux is comparable between
 * processes of one machine. Every other member is a field whose value is a string. Strings escape
 * {@code "}, {@code \}, control characters and everything outside ASCII, so a line is plain ASCII
 * whatever the output's encoding. A line is an event when it starts with {@code {"event":}; other
 * lines (logs) are not.
 *
 * @param kind what happened, a fixed word such as {@code leading}
 * @param epochMillis wall-clock time of the event
 * @param monoNanos the monotonic time of the event, or {@link #NO_MONO}
 * @param fields the fields, in the order written
 */
public record ProcessEvent(
    String kind, long epochMillis, long monoNanos, Map<String, String> fields) {
  /** The {@code monoNanos} of an event without a monotonic time. */
  public static final long NO_MONO = Long.MIN_VALUE;

  private static final String PREFIX = "{\"event\":";
  private static final Set<String> RESERVED = Set.of("event", "time", "mono");

  /**
   * An event.
   *
   * @throws IllegalArgumentException if a field is named {@code event}, {@code time} or {@code
   *     mono}
   */
  public ProcessEvent {
    Objects.requireNonNull(kind, "kind");
    Map<String, String> copy = new LinkedHashMap<>();
    fields.forEach(
        (key, value) -> {
          if (RESERVED.contains(key)) {
            throw new IllegalArgumentException(
                "field '" + key + "' is reserved by the event line; name it differently");
          }
          copy.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
        });
    fields = Collections.unmodifiableMap(copy);
  }

  /**
   * An event from alternating keys and values; a null value leaves its key out, any other is
   * written as its {@link String#valueOf}.
   *
   * @throws IllegalArgumentException if keys and values do not pair
   */
  public static ProcessEvent of(
      String kind, long epochMillis, long monoNanos, Object... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "keys and values must alternate; got " + keyValues.length + " arguments");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      if (keyValues[i + 1] != null) {
        fields.put(String.valueOf(keyValues[i]), String.valueOf(keyValues[i + 1]));
      }
    }
    return new ProcessEvent(kind, epochMillis, monoNanos, fields);
  }

  /** The field's value, or the empty string when the event has none. */
  public String get(String key) {
    return fields.getOrDefault(key, "");
  }

  /** Whether the event carries a monotonic time. */
  public boolean hasMono() {
    return monoNanos != NO_MONO;
  }

  /** The event as one line of JSON, without a line break. */
  public String toJson() {
    StringBuilder out = new StringBuilder(64 + 24 * fields.size());
    out.append(PREFIX);
    quote(kind, out);
    out.append(",\"time\":").append(epochMillis);
    if (hasMono()) {
      out.append(",\"mono\":").append(monoNanos);
    }
    for (Map.Entry<String, String> field : fields.entrySet()) {
      out.append(',');
      quote(field.getKey(), out);
      out.append(':');
      quote(field.getValue(), out);
    }
    return out.append('}').toString();
  }

  /**
   * Reads a line that {@link #toJson()} wrote. Lines that are not events, or that are not well
   * formed, give empty.
   */
  public static Optional<ProcessEvent> parse(String line) {
    String text = line.strip();
    if (!text.startsWith(PREFIX)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Reader(text).event());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static void quote(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** A reader of one flat JSON object: string members, and the whole numbers time and mono. */
  private static final class Reader {
    private final String text;
    private int at;

    Reader(String text) {
      this.text = text;
    }

    ProcessEvent event() {
      expect('{');
      String kind = null;
      Long time = null;
      long mono = NO_MONO;
      Map<String, String> fields = new LinkedHashMap<>();
      do {
        String key = string();
        expect(':');
        switch (key) {
          case "event" -> kind = string();
          case "time" -> time = number();
          case "mono" -> mono = number();
          default -> {
            if (fields.put(key, string()) != null) {
              throw new IllegalArgumentException("field " + key + " twice");
            }
          }
        }
      } while (next(','));
      expect('}');
      if (at != text.length() || kind == null || time == null) {
        throw new IllegalArgumentException("not an event");
      }
      return new ProcessEvent(kind, time, mono, fields);
    }

    private boolean next(char c) {
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!next(c)) {
        throw new IllegalArgumentException("expected " + c + " at " + at);
      }
    }

    private long number() {
      int from = at;
      next('-');
      while (at < text.length() && Character.isDigit(text.charAt(at))) {
        at++;
      }
      return Long.parseLong(text.substring(from, at)); // NumberFormatException is an IAE
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (at >= text.length()) {
          throw new IllegalArgumentException("unterminated string");
        }
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= text.length()) {
          throw new IllegalArgumentException("unterminated escape");
        }
        char e = text.charAt(at++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            int code = 0;
            for (int end = at + 4; at < end; at++) {
              int digit = at < text.length() ? Character.digit(text.charAt(at), 16) : -1;
              if (digit < 0) {
                throw new IllegalArgumentException("\\u needs four hex digits");
              }
              code = code * 16 + digit;
            }
            out.append((char) code);
          }
          default -> throw new IllegalArgumentException("unknown escape \\" + e);
        }
      }
    }
  }
}
