package dev.elector.kube.internal;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes plain values as JSON text: maps with string keys, lists, strings, numbers, booleans and
 * null (written as {@code null}, which a merge patch needs to remove a field). Backends parse with
 * their client's own JSON library; writing needs nothing but this.
 */
public final class JsonText {
  private JsonText() {}

  /**
   * The JSON text of {@code value}.
   *
   * @throws IllegalArgumentException for a value of another type, or a non-finite number
   */
  public static String write(@Nullable Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, @Nullable Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      string(out, s);
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Number n) {
      if ((n instanceof Double d && !Double.isFinite(d))
          || (n instanceof Float f && !Float.isFinite(f))) {
        throw new IllegalArgumentException("JSON has no " + n);
      }
      out.append(n);
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String key)) {
          throw new IllegalArgumentException("JSON object keys are strings, not " + entry.getKey());
        }
        if (!first) {
          out.append(',');
        }
        first = false;
        string(out, key);
        out.append(':');
        append(out, entry.getValue());
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        append(out, list.get(i));
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
    }
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
