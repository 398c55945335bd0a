package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.elector.lock.LeaderRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

/**
 * The JSON of a leader record in client-go's field names: {@code holderIdentity},
 * {@code leaseDurationSeconds} (whole seconds, the elector's rounded up), {@code acquireTime},
 * {@code renewTime} (RFC 3339, microseconds, UTC) and a transitions counter whose name differs
 * between a Lease spec ({@code leaseTransitions}) and the ConfigMap annotation
 * ({@code leaderTransitions}).
 *
 * <p>Reading is lenient where client-go is: missing fields are empty, times in odd formats are
 * parsed leniently or dropped, durations are taken as found (even non-positive). Fields of the
 * wrong type and negative transition counts make the record malformed.
 */
public final class RecordJson {
  private RecordJson() {}

  /**
   * The record as JSON. With {@code explicitNulls}, missing values are written as JSON null, which
   * a merge patch takes as "remove the field".
   */
  public static JsonObject write(LeaderRecord record, String transitionsKey,
      boolean explicitNulls) {
    JsonObject json = new JsonObject();
    json.addProperty("holderIdentity", record.holderIdentity());
    put(json, "leaseDurationSeconds", record.leaseDuration() == null ? null
        : new JsonPrimitive(wholeSeconds(record.leaseDuration())), explicitNulls);
    put(json, "acquireTime", time(record.acquireTime()), explicitNulls);
    put(json, "renewTime", time(record.renewTime()), explicitNulls);
    json.addProperty(transitionsKey, record.leaderTransitions());
    return json;
  }

  /** Reads a record; {@code where} names the JSON's place in problem texts. */
  public static KubeObjectFormat.Parsed read(JsonObject json, String transitionsKey,
      String where) {
    JsonElement holder = json.get("holderIdentity");
    if (!absent(holder) && !isString(holder)) {
      return KubeObjectFormat.Parsed.malformed(where + ".holderIdentity is not a string: "
          + holder);
    }
    JsonElement duration = json.get("leaseDurationSeconds");
    Long seconds = null;
    if (!absent(duration)) {
      seconds = wholeNumber(duration);
      if (seconds == null) {
        return KubeObjectFormat.Parsed.malformed(where + ".leaseDurationSeconds is not a whole"
            + " number: " + duration);
      }
    }
    JsonElement transitions = json.get(transitionsKey);
    long count = 0;
    if (!absent(transitions)) {
      Long value = wholeNumber(transitions);
      if (value == null || value < 0) {
        return KubeObjectFormat.Parsed.malformed(where + "." + transitionsKey
            + " is not a non-negative whole number: " + transitions);
      }
      count = value;
    }
    return KubeObjectFormat.Parsed.of(new LeaderRecord(
        absent(holder) ? "" : holder.getAsString(),
        seconds == null ? null : Duration.ofSeconds(seconds),
        readTime(json.get("acquireTime")),
        readTime(json.get("renewTime")),
        count));
  }

  /** Whole seconds, rounded up. */
  static long wholeSeconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }

  private static void put(JsonObject json, String key, JsonElement value, boolean explicitNulls) {
    if (value != null) {
      json.add(key, value);
    } else if (explicitNulls) {
      json.add(key, JsonNull.INSTANCE);
    }
  }

  private static JsonElement time(Instant time) {
    return time == null ? null : new JsonPrimitive(KubeTimes.formatMicros(time));
  }

  private static Instant readTime(JsonElement element) {
    return isString(element) ? KubeTimes.parse(element.getAsString()) : null;
  }

  private static boolean absent(JsonElement element) {
    return element == null || element.isJsonNull();
  }

  private static boolean isString(JsonElement element) {
    return element != null && element.isJsonPrimitive() && element.getAsJsonPrimitive().isString();
  }

  private static Long wholeNumber(JsonElement element) {
    if (!element.isJsonPrimitive() || !element.getAsJsonPrimitive().isNumber()) {
      return null;
    }
    try {
      return new BigDecimal(element.getAsString()).longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }
}
