package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import java.util.Map;

/** A record in a coordination.k8s.io/v1 Lease's spec, as client-go's LeaseLock writes it. */
public final class LeaseShape implements ObjectShape {
  /** Makes the shape; it holds no state. */
  public LeaseShape() {}

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
  public Map<String, Object> createBody(String namespace, String name, LeaderRecord record) {
    Map<String, Object> body = skeleton(namespace, name);
    body.put("spec", RecordFields.write(record, RecordFields.LEASE_TRANSITIONS, false));
    return body;
  }

  @Override
  public Map<String, Object> patchBody(LeaderRecord record) {
    return Map.of("spec", RecordFields.write(record, RecordFields.LEASE_TRANSITIONS, true));
  }

  @Override
  public RecordFields.Parsed parse(Map<String, Object> object) {
    Object spec = object.get("spec");
    if (spec == null) {
      return RecordFields.Parsed.empty();
    }
    Map<String, Object> fields = ObjectFields.asObject(spec);
    if (fields == null) {
      return RecordFields.Parsed.malformed("the Lease's spec is not an object: " + spec);
    }
    return RecordFields.read(fields, RecordFields.LEASE_TRANSITIONS, "spec");
  }
}
