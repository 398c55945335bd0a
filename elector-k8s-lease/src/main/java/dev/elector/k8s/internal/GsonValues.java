package dev.elector.k8s.internal;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSyntaxException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * JSON with client-java's Gson on the plain values the Kubernetes locks work on: maps, lists,
 * strings, {@link BigDecimal} numbers, booleans and null.
 */
final class GsonValues {
  /** Writes the nulls of maps, which a merge patch needs, and strings as they are. */
  private static final Gson GSON =
      new GsonBuilder().serializeNulls().disableHtmlEscaping().create();

  private GsonValues() {}

  /** The JSON text of plain values, nulls included. */
  static String write(@Nullable Object value) {
    return GSON.toJson(toTree(value));
  }

  /** Parses any JSON value; throws on text that is not JSON. */
  static @Nullable Object parse(String text) {
    return plainValue(JsonParser.parseString(text));
  }

  /** The text as a JSON object in plain values, or null when it is none. */
  static @Nullable Map<String, Object> parseObject(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      JsonElement element = JsonParser.parseString(text);
      return element.isJsonObject() ? toPlain(element.getAsJsonObject()) : null;
    } catch (JsonSyntaxException | IllegalStateException e) {
      return null;
    }
  }

  /** A Gson object as plain values: maps, lists, strings, BigDecimal numbers, booleans, null. */
  static Map<String, Object> toPlain(JsonObject object) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> entry : object.entrySet()) {
      map.put(entry.getKey(), plainValue(entry.getValue()));
    }
    return map;
  }

  private static @Nullable Object plainValue(@Nullable JsonElement element) {
    if (element == null || element.isJsonNull()) {
      return null;
    }
    if (element.isJsonObject()) {
      return toPlain(element.getAsJsonObject());
    }
    if (element.isJsonArray()) {
      List<Object> list = new ArrayList<>();
      for (JsonElement item : element.getAsJsonArray()) {
        list.add(plainValue(item));
      }
      return list;
    }
    JsonPrimitive primitive = element.getAsJsonPrimitive();
    if (primitive.isBoolean()) {
      return primitive.getAsBoolean();
    }
    if (primitive.isNumber()) {
      try {
        return new BigDecimal(primitive.getAsString());
      } catch (NumberFormatException e) {
        return primitive.getAsString();
      }
    }
    return primitive.getAsString();
  }

  /** Plain values back as a Gson tree. */
  static JsonElement toTree(@Nullable Object value) {
    if (value == null) {
      return JsonNull.INSTANCE;
    }
    if (value instanceof Map<?, ?> map) {
      JsonObject object = new JsonObject();
      map.forEach((key, item) -> object.add(String.valueOf(key), toTree(item)));
      return object;
    }
    if (value instanceof List<?> list) {
      JsonArray array = new JsonArray();
      list.forEach(item -> array.add(toTree(item)));
      return array;
    }
    if (value instanceof Boolean b) {
      return new JsonPrimitive(b);
    }
    if (value instanceof Number n) {
      return new JsonPrimitive(n);
    }
    return new JsonPrimitive(String.valueOf(value));
  }
}
