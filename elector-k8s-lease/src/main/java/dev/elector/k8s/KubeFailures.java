package dev.elector.k8s;

import dev.elector.kube.internal.FailureText;
import dev.elector.lock.LockFailure;
import java.io.IOException;

/**
 * Turns API answers and I/O errors into failures that say what to do, about one lock object or,
 * with a null name, about the whole collection in the namespace (the shared watch). The texts are
 * those of every Elector backend ({@link FailureText}).
 */
final class KubeFailures {
  private final FailureText text;

  /**
   * @param name the lock object's name, or null for the whole collection
   */
  KubeFailures(KubeObjectFormat format, String namespace, String name, String identity) {
    this(format.kind(), format.group(), format.resource(), namespace, name, identity);
  }

  /**
   * @param group the API group, empty for the core group
   * @param resource the plural resource name
   * @param name the object's name, or null for the whole collection
   * @param identity who asks, as messages name it
   */
  KubeFailures(
      String kind, String group, String resource, String namespace, String name, String identity) {
    this.text = new FailureText(kind, group, resource, namespace, name, identity);
  }

  /** The same texts, for the shared loop. */
  FailureText text() {
    return text;
  }

  /**
   * The resource as RBAC and error messages spell it, such as {@code leases.coordination.k8s.io}.
   */
  String qualifiedResource() {
    return text.qualifiedResource();
  }

  /** The Role rule that allows {@code verb} on this lock. */
  String ruleFor(String verb) {
    return text.ruleFor(verb);
  }

  LockFailure fromReply(String verb, KubeHttp.Reply reply) {
    return text.fromStatus(verb, reply.code(), reply.statusMessage());
  }

  LockFailure fromIo(String verb, IOException e, long timeoutMillis) {
    return text.fromTransport(verb, e, timeoutMillis);
  }
}
