package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A record kept as JSON in one annotation of a ConfigMap, as client-go's ConfigMapLock wrote it.
 * Only that annotation is ever written; data, labels and other annotations stay as they are.
 */
public final class ConfigMapShape implements ObjectShape {
  /** The annotation holding the record. */
  public static final String ANNOTATION = "control-plane.alpha.kubernetes.io/leader";

  private final JsonCodec json;

  /**
   * @param json reads and writes the annotation's JSON, with the client's JSON library
   */
  public ConfigMapShape(JsonCodec json) {
    this.json = json;
  }

  @Override
  public String kind() {
    return "ConfigMap";
  }

  @Override
  public String group() {
    return "";
  }

  @Override
  public String version() {
    return "v1";
  }

  @Override
  public String resource() {
    return "configmaps";
  }

  @Override
  public Map<String, Object> createBody(String namespace, String name, LeaderRecord record) {
    Map<String, Object> body = skeleton(namespace, name);
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata =
        (Map<String, Object>) Objects.requireNonNull(body.get("metadata"), "skeleton's metadata");
    metadata.put("annotations", annotations(record));
    return body;
  }

  @Override
  public Map<String, Object> patchBody(LeaderRecord record) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("annotations", annotations(record));
    return Map.of("metadata", metadata);
  }

  @Override
  public RecordFields.Parsed parse(Map<String, Object> object) {
    Map<String, Object> metadata = ObjectFields.asObject(object.get("metadata"));
    Map<String, Object> annotations =
        metadata == null ? null : ObjectFields.asObject(metadata.get("annotations"));
    Object value = annotations == null ? null : annotations.get(ANNOTATION);
    if (value == null) {
      // client-go reads a ConfigMap without the annotation as an empty record: free to take
      return RecordFields.Parsed.empty();
    }
    String text = String.valueOf(value);
    Object parsed;
    try {
      parsed = json.parseJson(text);
    } catch (RuntimeException e) {
      return RecordFields.Parsed.malformed(
          "annotation " + ANNOTATION + " is not valid JSON: " + abbreviate(text));
    }
    Map<String, Object> fields = ObjectFields.asObject(parsed);
    if (fields == null) {
      return RecordFields.Parsed.malformed(
          "annotation " + ANNOTATION + " is not a JSON object: " + abbreviate(text));
    }
    return RecordFields.read(fields, RecordFields.LEADER_TRANSITIONS, "annotation " + ANNOTATION);
  }

  private Map<String, Object> annotations(LeaderRecord record) {
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put(
        ANNOTATION,
        json.writeJson(RecordFields.write(record, RecordFields.LEADER_TRANSITIONS, false)));
    return annotations;
  }

  private static String abbreviate(String text) {
    return text.length() <= 80 ? "\"" + text + "\"" : "\"" + text.substring(0, 80) + "...\"";
  }
}
