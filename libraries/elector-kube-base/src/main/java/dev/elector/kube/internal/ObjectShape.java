package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import java.util.LinkedHashMap;
import java.util.Map;

/** How a kind of Kubernetes object stores a {@link LeaderRecord}, on plain JSON values. */
public interface ObjectShape {

  /**
   * The shape of a {@code Lease} or a {@code ConfigMap}, the latter reading and writing its
   * annotation with {@code json}, the client's JSON library.
   */
  static ObjectShape forKind(ObjectKind kind, JsonCodec json) {
    return switch (kind) {
      case LEASE -> new LeaseShape();
      case CONFIG_MAP -> new ConfigMapShape(json);
    };
  }

  /** The object's kind, such as {@code Lease}. */
  String kind();

  /** The API group, empty for the core group. */
  String group();

  /** The group version, such as {@code v1}. */
  String version();

  /** The plural resource name, such as {@code leases}. */
  String resource();

  /** The {@code apiVersion} written into bodies. */
  default String apiVersion() {
    return group().isEmpty() ? version() : group() + "/" + version();
  }

  /** The full body that creates the object {@code namespace/name} holding {@code record}. */
  Map<String, Object> createBody(String namespace, String name, LeaderRecord record);

  /** The fields of the object that hold the record, as a JSON merge patch. */
  Map<String, Object> patchBody(LeaderRecord record);

  /** Reads the record from an object; may throw on shapes it did not foresee. */
  RecordFields.Parsed parse(Map<String, Object> object);

  /** The skeleton of a create body: apiVersion, kind and metadata with name and namespace. */
  default Map<String, Object> skeleton(String namespace, String name) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("namespace", namespace);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("apiVersion", apiVersion());
    body.put("kind", kind());
    body.put("metadata", metadata);
    return body;
  }
}
