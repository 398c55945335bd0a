package dev.elector.configmap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.elector.k8s.KubeObjectFormat;
import dev.elector.k8s.RecordJson;
import dev.elector.lock.LeaderRecord;

/**
 * A record kept as JSON in one annotation of a ConfigMap, as client-go's ConfigMapLock wrote it.
 * Only that annotation is ever written; data, labels and other annotations stay as they are.
 */
final class ConfigMapFormat implements KubeObjectFormat {
  static final String ANNOTATION = ConfigMapLock.ANNOTATION;
  static final String TRANSITIONS = "leaderTransitions";

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
  public JsonObject createBody(String namespace, String name, LeaderRecord record) {
    JsonObject metadata = annotated(record);
    metadata.addProperty("name", name);
    metadata.addProperty("namespace", namespace);
    JsonObject body = new JsonObject();
    body.addProperty("apiVersion", apiVersion());
    body.addProperty("kind", kind());
    body.add("metadata", metadata);
    return body;
  }

  @Override
  public JsonObject patchBody(LeaderRecord record) {
    JsonObject patch = new JsonObject();
    patch.add("metadata", annotated(record));
    return patch;
  }

  @Override
  public Parsed parse(JsonObject object) {
    JsonElement metadata = object.get("metadata");
    JsonElement annotations =
        metadata != null && metadata.isJsonObject()
            ? metadata.getAsJsonObject().get("annotations")
            : null;
    JsonElement value =
        annotations != null && annotations.isJsonObject()
            ? annotations.getAsJsonObject().get(ANNOTATION)
            : null;
    if (value == null || value.isJsonNull()) {
      // client-go reads a ConfigMap without the annotation as an empty record: free to take
      return Parsed.of(new LeaderRecord("", null, null, null, 0));
    }
    String text = value.getAsString();
    JsonElement json;
    try {
      json = JsonParser.parseString(text);
    } catch (JsonParseException e) {
      return Parsed.malformed(
          "annotation " + ANNOTATION + " is not valid JSON: " + abbreviate(text));
    }
    if (!json.isJsonObject()) {
      return Parsed.malformed(
          "annotation " + ANNOTATION + " is not a JSON object: " + abbreviate(text));
    }
    return RecordJson.read(json.getAsJsonObject(), TRANSITIONS, "annotation " + ANNOTATION);
  }

  private static JsonObject annotated(LeaderRecord record) {
    JsonObject annotations = new JsonObject();
    annotations.addProperty(ANNOTATION, RecordJson.write(record, TRANSITIONS, false).toString());
    JsonObject metadata = new JsonObject();
    metadata.add("annotations", annotations);
    return metadata;
  }

  private static String abbreviate(String text) {
    return text.length() <= 80 ? "\"" + text + "\"" : "\"" + text.substring(0, 80) + "...\"";
  }
}
