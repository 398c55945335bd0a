package dev.elector.k8s;

import com.google.gson.JsonObject;
import dev.elector.lock.LeaderRecord;
import java.util.Objects;

/**
 * How a kind of Kubernetes object stores a {@link LeaderRecord}. Implemented by the backend modules
 * (Lease, ConfigMap); applications use {@link LeaseLock} or the ConfigMap lock instead.
 */
public interface KubeObjectFormat {

  /** The object's kind, such as {@code Lease}. */
  String kind();

  /** The API group, empty for the core group. */
  String group();

  /** The group version, such as {@code v1}. */
  String version();

  /** The plural resource name, such as {@code leases}. */
  String resource();

  /** The {@code apiVersion} written into bodies, such as {@code coordination.k8s.io/v1}. */
  default String apiVersion() {
    return group().isEmpty() ? version() : group() + "/" + version();
  }

  /** The full body that creates the object {@code namespace/name} holding {@code record}. */
  JsonObject createBody(String namespace, String name, LeaderRecord record);

  /**
   * The part of the object that holds the record, as a JSON merge patch: only the fields this
   * format owns. The caller adds the resourceVersion precondition.
   */
  JsonObject patchBody(LeaderRecord record);

  /** Reads the record from an object; never throws. */
  Parsed parse(JsonObject object);

  /** A record read from an object, or what is wrong with it. Exactly one is non-null. */
  record Parsed(LeaderRecord record, String problem) {
    /** Checks that exactly one of the record and the problem is given. */
    public Parsed {
      if ((record == null) == (problem == null)) {
        throw new IllegalArgumentException("exactly one of record and problem must be given");
      }
    }

    /** A readable record. */
    public static Parsed of(LeaderRecord record) {
      return new Parsed(Objects.requireNonNull(record, "record"), null);
    }

    /** An unreadable record. */
    public static Parsed malformed(String problem) {
      return new Parsed(null, Objects.requireNonNull(problem, "problem"));
    }
  }
}
