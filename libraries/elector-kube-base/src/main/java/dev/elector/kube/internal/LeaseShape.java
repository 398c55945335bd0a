package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import java.util.Map;

/**
 * A record in a coordination.k8s.io/v1 Lease's spec, as client-go's LeaseLock writes it. A Lease
 * under coordinated leader election names its strategy in {@code spec.strategy}, which is read into
 * the record (the elector then never writes the Lease) and never written: a merge patch of the
 * record's fields leaves it as it is. Its {@code spec.preferredHolder} is that election's
 * controller's, and is not read.
 */
public final class LeaseShape implements ObjectShape {
  /** The field of a Lease's spec naming its coordinated leader election strategy. */
  public static final String STRATEGY = "strategy";

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
    RecordFields.Parsed parsed = RecordFields.read(fields, RecordFields.LEASE_TRANSITIONS, "spec");
    LeaderRecord record = parsed.record();
    Object strategy = fields.get(STRATEGY);
    if (record == null || strategy == null) {
      return parsed;
    }
    // Any value counts: a strategy this reader cannot make sense of still means a controller
    // chooses the holder.
    String named = strategy instanceof String text ? text : RecordFields.show(strategy);
    return RecordFields.Parsed.of(
        new LeaderRecord(
            record.holderIdentity(),
            record.leaseDuration(),
            record.acquireTime(),
            record.renewTime(),
            record.leaderTransitions(),
            record.preferredHolder(),
            named));
  }
}
