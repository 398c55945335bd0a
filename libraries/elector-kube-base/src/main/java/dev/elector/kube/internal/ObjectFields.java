package dev.elector.kube.internal;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Fields of a Kubernetes object held as plain maps, as a JSON parser gives them. */
public final class ObjectFields {
  private ObjectFields() {}

  /** {@code metadata.resourceVersion} of an object, or null when it has none. */
  public static @Nullable String resourceVersion(@Nullable Map<String, Object> object) {
    Map<String, Object> metadata = object == null ? null : asObject(object.get("metadata"));
    if (metadata == null
        || !(metadata.get("resourceVersion") instanceof String version)
        || version.isEmpty()) {
      return null;
    }
    return version;
  }

  /** {@code metadata.name} of an object, or null when it has none. */
  public static @Nullable String name(@Nullable Map<String, Object> object) {
    Map<String, Object> metadata = object == null ? null : asObject(object.get("metadata"));
    return metadata != null && metadata.get("name") instanceof String name ? name : null;
  }

  /** A JSON object as a map with string keys, or null when {@code value} is not one. */
  @SuppressWarnings("unchecked")
  public static @Nullable Map<String, Object> asObject(@Nullable Object value) {
    if (!(value instanceof Map<?, ?> map)) {
      return null;
    }
    for (Object key : map.keySet()) {
      if (!(key instanceof String)) {
        return null;
      }
    }
    return (Map<String, Object>) map;
  }
}
