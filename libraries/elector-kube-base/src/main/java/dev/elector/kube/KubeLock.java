package dev.elector.kube;

import dev.elector.lock.LeaderLock;
import java.time.Duration;

/**
 * A lock kept in one Kubernetes object, whichever client it talks through: the client-java locks
 * ({@code dev.elector.k8s.LeaseLock}, {@code dev.elector.configmap.ConfigMapLock}) and the fabric8
 * locks ({@code dev.elector.fabric8.Fabric8LeaseLock}, {@code Fabric8ConfigMapLock}) all keep the
 * same client-go compatible record, so candidates on different clients can share one object.
 */
public interface KubeLock extends LeaderLock {
  /** The namespace of the lock object. */
  String namespace();

  /** The name of the lock object. */
  String name();

  /**
   * The bound of the lock's own requests (its watch's lists, its Events), and the longest any
   * elector call may take: the requestTimeout set on the builder, or 5 s. Each elector call is
   * bounded by the timeout it carries, or by this when it is shorter; a call the elector cancels
   * ends sooner: its request is not sent, or is aborted in flight.
   */
  Duration requestTimeout();

  /**
   * The Role rule that lets this lock's identity perform {@code verb} on the lock object, as it
   * appears in failure messages, such as {@code apiGroups: ["coordination.k8s.io"], resources:
   * ["leases"], verbs: ["patch"], resourceNames: ["my-lock"]}.
   */
  String roleRuleFor(String verb);
}
