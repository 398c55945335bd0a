package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.lock.LeaderRecord;

/** A record in a coordination.k8s.io/v1 Lease's spec, as client-go's LeaseLock writes it. */
final class LeaseFormat implements KubeObjectFormat {
  static final String TRANSITIONS = "leaseTransitions";

  @Override
  public String kind() {
    return "Lease";
  }

  @Override
  public String group() {
    return "coordination.k8s.io";
  }

  @Override
  public String version() {
    return "v1";
  }

  @Override
  public String resource() {
    return "leases";
  }

  @Override
  public JsonObject createBody(String namespace, String name, LeaderRecord record) {
    JsonObject metadata = new JsonObject();
    metadata.addProperty("name", name);
    metadata.addProperty("namespace", namespace);
    JsonObject body = new JsonObject();
    body.addProperty("apiVersion", apiVersion());
    body.addProperty("kind", kind());
    body.add("metadata", metadata);
    body.add("spec", RecordJson.write(record, TRANSITIONS, false));
    return body;
  }

  @Override
  public JsonObject patchBody(LeaderRecord record) {
    JsonObject patch = new JsonObject();
    patch.add("spec", RecordJson.write(record, TRANSITIONS, true));
    return patch;
  }

  @Override
  public Parsed parse(JsonObject object) {
    JsonElement spec = object.get("spec");
    if (spec == null || spec.isJsonNull()) {
      return Parsed.of(new LeaderRecord("", null, null, null, 0));
    }
    if (!spec.isJsonObject()) {
      return Parsed.malformed("the Lease's spec is not an object: " + spec);
    }
    return RecordJson.read(spec.getAsJsonObject(), TRANSITIONS, "spec");
  }
}
