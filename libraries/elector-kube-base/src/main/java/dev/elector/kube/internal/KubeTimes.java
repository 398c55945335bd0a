package dev.elector.kube.internal;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * Timestamps as Kubernetes writes them: RFC 3339 in UTC. Parsing is lenient and never throws, so a
 * record written by another tool in an odd format still reads (with a null time at worst).
 */
final class KubeTimes {
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private KubeTimes() {}

  /**
   * Parses RFC 3339 with or without a fraction, with {@code Z} or an offset, also with a space
   * instead of {@code T} or without a zone (taken as UTC). Returns null for null, blank or
   * unparseable text.
   */
  public static @Nullable Instant parse(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String t = text.trim().replace(' ', 'T');
    if (t.length() > 10 && t.charAt(10) == 't') {
      t = t.substring(0, 10) + 'T' + t.substring(11);
    }
    if (t.endsWith("z")) {
      t = t.substring(0, t.length() - 1) + 'Z';
    }
    try {
      return OffsetDateTime.parse(t, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException notOffset) {
      try {
        return LocalDateTime.parse(t, DateTimeFormatter.ISO_LOCAL_DATE_TIME)
            .toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException unreadable) {
        return null;
      }
    }
  }

  /** Formats as a Kubernetes MicroTime: UTC, six fraction digits. Null stays null. */
  public static @Nullable String formatMicros(@Nullable Instant time) {
    return time == null ? null : MICROS.format(time.truncatedTo(ChronoUnit.MICROS));
  }
}
