package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A leader record in client-go's field names, on plain values: {@code holderIdentity}, {@code
 * leaseDurationSeconds} (whole seconds, the elector's rounded up), {@code acquireTime}, {@code
 * renewTime} (RFC 3339, microseconds, UTC) and a transitions counter whose name differs between a
 * Lease spec ({@code leaseTransitions}) and the ConfigMap annotation ({@code leaderTransitions}).
 *
 * <p>Reading is lenient where client-go is: missing fields are empty, times in odd formats are
 * parsed leniently or dropped, durations are taken as found (even non-positive). Fields of the
 * wrong type and negative transition counts make the record malformed. Values are what a JSON
 * parser gives: {@code String}, any {@code Number}, {@code Boolean}, null, or something else for
 * objects and arrays (shown by its {@code toString()} in problems).
 */
public final class RecordFields {
  /** The transitions field of a Lease spec. */
  public static final String LEASE_TRANSITIONS = "leaseTransitions";

  /** The transitions field of the ConfigMap annotation's JSON. */
  public static final String LEADER_TRANSITIONS = "leaderTransitions";

  private RecordFields() {}

  /** A record read from an object, or what is wrong with it. Exactly one is non-null. */
  public record Parsed(@Nullable LeaderRecord record, @Nullable String problem) {
    /** Checks that exactly one of the record and the problem is given. */
    public Parsed {
      if ((record == null) == (problem == null)) {
        throw new IllegalArgumentException("exactly one of record and problem must be given");
      }
    }

    /** A readable record. */
    public static Parsed of(LeaderRecord record) {
      return new Parsed(Objects.requireNonNull(record, "record"), null);
    }

    /** An unreadable record. */
    public static Parsed malformed(String problem) {
      return new Parsed(null, Objects.requireNonNull(problem, "problem"));
    }

    /** The empty record, as client-go reads an object without one: free to take. */
    public static Parsed empty() {
      return of(new LeaderRecord("", null, null, null, 0));
    }
  }

  /**
   * The record's fields in client-go's order. With {@code explicitNulls}, missing values are
   * present with a null value, which a merge patch takes as "remove the field"; without, they are
   * left out.
   */
  public static Map<String, Object> write(
      LeaderRecord record, String transitionsKey, boolean explicitNulls) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("holderIdentity", record.holderIdentity());
    put(
        fields,
        "leaseDurationSeconds",
        record.leaseDuration() == null ? null : wholeSeconds(record.leaseDuration()),
        explicitNulls);
    put(fields, "acquireTime", KubeTimes.formatMicros(record.acquireTime()), explicitNulls);
    put(fields, "renewTime", KubeTimes.formatMicros(record.renewTime()), explicitNulls);
    fields.put(transitionsKey, record.leaderTransitions());
    return fields;
  }

  /** Reads a record; {@code where} names the fields' place in problem texts. Never throws. */
  public static Parsed read(Map<String, ?> fields, String transitionsKey, String where) {
    Object holder = fields.get("holderIdentity");
    if (holder != null && !(holder instanceof String)) {
      return Parsed.malformed(where + ".holderIdentity is not a string: " + show(holder));
    }
    Object duration = fields.get("leaseDurationSeconds");
    Long seconds = null;
    if (duration != null) {
      seconds = wholeNumber(duration);
      if (seconds == null) {
        return Parsed.malformed(
            where + ".leaseDurationSeconds is not a whole number: " + show(duration));
      }
    }
    Object transitions = fields.get(transitionsKey);
    long count = 0;
    if (transitions != null) {
      Long value = wholeNumber(transitions);
      if (value == null || value < 0) {
        return Parsed.malformed(
            where
                + "."
                + transitionsKey
                + " is not a non-negative whole number: "
                + show(transitions));
      }
      count = value;
    }
    return Parsed.of(
        new LeaderRecord(
            holder == null ? "" : (String) holder,
            seconds == null ? null : Duration.ofSeconds(seconds),
            readTime(fields.get("acquireTime")),
            readTime(fields.get("renewTime")),
            count));
  }

  /** Whole seconds, rounded up. */
  public static long wholeSeconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }

  /**
   * A value as problem texts show it: strings quoted, numbers plain, anything else as it prints.
   */
  public static String show(Object value) {
    if (value instanceof String s) {
      return "\"" + s + "\"";
    }
    if (value instanceof Number number) {
      try {
        return new BigDecimal(number.toString()).stripTrailingZeros().toString();
      } catch (NumberFormatException e) {
        return number.toString();
      }
    }
    return String.valueOf(value);
  }

  private static void put(
      Map<String, Object> fields, String key, @Nullable Object value, boolean explicitNulls) {
    if (value != null || explicitNulls) {
      fields.put(key, value);
    }
  }

  private static @Nullable Instant readTime(@Nullable Object value) {
    return value instanceof String text ? KubeTimes.parse(text) : null;
  }

  private static @Nullable Long wholeNumber(Object value) {
    if (!(value instanceof Number)) {
      return null;
    }
    try {
      return new BigDecimal(value.toString()).longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }
}
