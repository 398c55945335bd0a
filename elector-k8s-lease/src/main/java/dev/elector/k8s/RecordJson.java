package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.elector.kube.internal.RecordFields;
import dev.elector.lock.LeaderRecord;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON of a leader record in client-go's field names: {@code holderIdentity}, {@code
 * leaseDurationSeconds} (whole seconds, the elector's rounded up), {@code acquireTime}, {@code
 * renewTime} (RFC 3339, microseconds, UTC) and a transitions counter whose name differs between a
 * Lease spec ({@code leaseTransitions}) and the ConfigMap annotation ({@code leaderTransitions}).
 *
 * <p>Reading is lenient where client-go is: missing fields are empty, times in odd formats are
 * parsed leniently or dropped, durations are taken as found (even non-positive). Fields of the
 * wrong type and negative transition counts make the record malformed. The rules are those of every
 * Elector backend; this class puts them on Gson's types.
 */
public final class RecordJson {
  private RecordJson() {}

  /**
   * The record as JSON. With {@code explicitNulls}, missing values are written as JSON null, which
   * a merge patch takes as "remove the field".
   */
  public static JsonObject write(
      LeaderRecord record, String transitionsKey, boolean explicitNulls) {
    JsonObject json = new JsonObject();
    RecordFields.write(record, transitionsKey, explicitNulls)
        .forEach(
            (key, value) -> {
              if (value == null) {
                json.add(key, JsonNull.INSTANCE);
              } else if (value instanceof Number number) {
                json.add(key, new JsonPrimitive(number));
              } else {
                json.add(key, new JsonPrimitive(value.toString()));
              }
            });
    return json;
  }

  /** Reads a record; {@code where} names the JSON's place in problem texts. */
  public static KubeObjectFormat.Parsed read(JsonObject json, String transitionsKey, String where) {
    Map<String, Object> fields = new HashMap<>();
    for (Map.Entry<String, JsonElement> entry : json.entrySet()) {
      fields.put(entry.getKey(), plain(entry.getValue()));
    }
    RecordFields.Parsed parsed = RecordFields.read(fields, transitionsKey, where);
    return parsed.problem() != null
        ? KubeObjectFormat.Parsed.malformed(parsed.problem())
        : KubeObjectFormat.Parsed.of(parsed.record());
  }

  /** A JSON value as a parser of plain values gives it; objects and arrays stay as they are. */
  private static Object plain(JsonElement element) {
    if (element == null || element.isJsonNull()) {
      return null;
    }
    if (element.isJsonPrimitive()) {
      JsonPrimitive primitive = element.getAsJsonPrimitive();
      if (primitive.isString()) {
        return primitive.getAsString();
      }
      if (primitive.isBoolean()) {
        return primitive.getAsBoolean();
      }
      try {
        return new BigDecimal(primitive.getAsString());
      } catch (NumberFormatException e) {
        return primitive.getAsString();
      }
    }
    return element;
  }
}
