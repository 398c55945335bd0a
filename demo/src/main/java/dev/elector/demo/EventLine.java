package dev.elector.demo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One {@code EVENT} line of an agent or a controller process. Agents print {@code EVENT
 * <epochMillis> <monotonicNanos> <kind> key=value ...} with bare values; controllers print {@code
 * EVENT <epochMillis> <KIND> key=value ...} with values quoted when they need it.
 *
 * @param source the process that printed it
 * @param epochMillis wall-clock time of the event
 * @param monoNanos {@code System.nanoTime()} of the event, or -1 when the line has none
 * @param kind the event kind, lower case
 * @param fields the key=value pairs
 */
record EventLine(
    String source, long epochMillis, long monoNanos, String kind, Map<String, String> fields) {

  /** Parses a line; empty if it is not an event line. */
  static Optional<EventLine> parse(String source, String line) {
    if (!line.startsWith("EVENT ")) {
      return Optional.empty();
    }
    try {
      int at = 6;
      int space = line.indexOf(' ', at);
      long millis = Long.parseLong(line.substring(at, space));
      at = space + 1;
      space = line.indexOf(' ', at);
      String second = space < 0 ? line.substring(at) : line.substring(at, space);
      long mono = -1;
      if (!second.isEmpty() && second.chars().allMatch(Character::isDigit)) {
        mono = Long.parseLong(second);
        at = space + 1;
        space = line.indexOf(' ', at);
      }
      String kind =
          (space < 0 ? line.substring(at) : line.substring(at, space))
              .toLowerCase(java.util.Locale.ROOT);
      return Optional.of(
          new EventLine(
              source,
              millis,
              mono,
              kind,
              space < 0 ? Map.of() : fields(line.substring(space + 1))));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  String get(String key) {
    return fields.getOrDefault(key, "");
  }

  private static Map<String, String> fields(String text) {
    Map<String, String> fields = new LinkedHashMap<>();
    int i = 0;
    while (i < text.length()) {
      while (i < text.length() && text.charAt(i) == ' ') {
        i++;
      }
      int eq = text.indexOf('=', i);
      if (eq < 0) {
        break;
      }
      String key = text.substring(i, eq);
      i = eq + 1;
      StringBuilder value = new StringBuilder();
      if (i < text.length() && text.charAt(i) == '"') {
        i++;
        while (i < text.length() && text.charAt(i) != '"') {
          char c = text.charAt(i++);
          if (c == '\\' && i < text.length()) {
            char next = text.charAt(i++);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(c);
          }
        }
        i++;
      } else {
        while (i < text.length() && text.charAt(i) != ' ') {
          value.append(text.charAt(i++));
        }
      }
      fields.put(key, value.toString());
    }
    return fields;
  }
}
