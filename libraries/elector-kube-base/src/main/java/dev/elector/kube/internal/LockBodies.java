package dev.elector.kube.internal;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of one lock object on plain values: the bodies that create it and renew it (with the
 * record's request to move leadership as the annotation {@value LeaderRecord#PREFERRED_HOLDER}),
 * and what an object read from the API server stands for.
 */
final class LockBodies {
  private final ObjectShape shape;
  private final String namespace;
  private final String name;
  private final String lock;

  LockBodies(ObjectShape shape, String namespace, String name) {
    this.shape = shape;
    this.namespace = namespace;
    this.name = name;
    this.lock = shape.kind() + " " + namespace + "/" + name;
  }

  /** The whole object holding {@code record}, to create it. */
  Map<String, Object> create(LeaderRecord record) {
    return withRequest(shape.createBody(namespace, name, record), record, false);
  }

  /**
   * A JSON merge patch of only the record's fields, with {@code expectedVersion} as {@code
   * metadata.resourceVersion}, the precondition of the update.
   */
  Map<String, Object> patch(String expectedVersion, LeaderRecord record) {
    Map<String, Object> patch = withRequest(shape.patchBody(record), record, true);
    Map<String, Object> metadata =
        new LinkedHashMap<>(Objects.requireNonNull(ObjectFields.asObject(patch.get("metadata"))));
    metadata.put("resourceVersion", expectedVersion);
    patch.put("metadata", metadata);
    return patch;
  }

  /** The state an object read from the API server stands for. */
  LockRead read(@Nullable Map<String, Object> object) {
    String version = ObjectFields.resourceVersion(object);
    if (version == null || object == null) { // no object has no version either
      return LockFailure.of(
          LockFailure.Kind.UNEXPECTED,
          "the API server returned " + lock + " without metadata.resourceVersion");
    }
    RecordFields.Parsed parsed;
    try {
      parsed = shape.parse(object);
    } catch (RuntimeException e) {
      parsed = RecordFields.Parsed.malformed("cannot read the record: " + e);
    }
    String problem = parsed.problem();
    if (problem != null) {
      return new LockRead.Malformed(version, problem);
    }
    // Parsed holds exactly one of record and problem
    LeaderRecord record = Objects.requireNonNull(parsed.record(), "record");
    return new LockRead.Found(version, record.withPreferredHolder(request(object)));
  }

  /** The identity the object's annotation {@value LeaderRecord#PREFERRED_HOLDER} names, or null. */
  private static @Nullable String request(Map<String, Object> object) {
    Map<String, Object> metadata = ObjectFields.asObject(object.get("metadata"));
    Map<String, Object> annotations =
        metadata == null ? null : ObjectFields.asObject(metadata.get("annotations"));
    return annotations != null && annotations.get(LeaderRecord.PREFERRED_HOLDER) instanceof String s
        ? s
        : null;
  }

  /**
   * {@code body} with the record's request to move leadership as the annotation {@value
   * LeaderRecord#PREFERRED_HOLDER}; a patch without a request removes the annotation (a new term's
   * record has none: the request was for it, or has lapsed).
   */
  private static Map<String, Object> withRequest(
      Map<String, Object> body, LeaderRecord record, boolean patch) {
    String wanted = record.preferredHolder();
    Map<String, Object> result = new LinkedHashMap<>(body);
    if (wanted == null && !patch) {
      return result;
    }
    Map<String, Object> metadata = ObjectFields.asObject(result.get("metadata"));
    metadata = metadata == null ? new LinkedHashMap<>() : new LinkedHashMap<>(metadata);
    Map<String, Object> annotations = ObjectFields.asObject(metadata.get("annotations"));
    annotations = annotations == null ? new LinkedHashMap<>() : new LinkedHashMap<>(annotations);
    annotations.put(LeaderRecord.PREFERRED_HOLDER, wanted); // null: a merge patch removes it
    metadata.put("annotations", annotations);
    result.put("metadata", metadata);
    return result;
  }
}
