package dev.elector.kube.internal;

import org.jspecify.annotations.Nullable;

/**
 * JSON text to and from plain values (maps with string keys, lists, strings, numbers, booleans,
 * null) with the backend client's own JSON library, which is on the class path with the client:
 * Gson for client-java, Jackson through {@code KubernetesSerialization} for fabric8.
 */
public interface JsonCodec {
  /** Parses any JSON value into plain values; throws on text that is not JSON. */
  @Nullable Object parseJson(String text);

  /**
   * The JSON text of plain values. Null values of a map are written as {@code null}: a merge patch
   * removes a field so.
   */
  String writeJson(@Nullable Object value);
}
