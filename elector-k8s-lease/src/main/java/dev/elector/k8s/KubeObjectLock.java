package dev.elector.k8s;

import dev.elector.kube.ForwardingKubeLock;
import dev.elector.kube.ObjectKind;
import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.ObjectLock;
import dev.elector.lock.LockFailure;

/**
 * The client-java base of {@link LeaseLock} and elector-configmap's {@code ConfigMapLock}: a lock
 * stored in one Kubernetes object, with optimistic concurrency by {@code metadata.resourceVersion},
 * which is the elector's version. It forwards every call to the one lock implementation of
 * elector-kube-base, which the fabric8 locks share.
 *
 * <p>Reads GET the object. Creates POST the whole object ({@code kind} and {@code apiVersion}
 * included); 409 is a conflict. Updates are a single JSON merge patch of only the record's fields,
 * with {@code metadata.resourceVersion} as precondition, so a leader renews with one request and
 * nothing else in the object is touched; 409 or a deleted object is a conflict. API errors become
 * {@link LockFailure}s naming the missing permission. Watching joins the watch of the whole
 * collection that the locks on the same client and namespace share, or opens a watch on exactly
 * this object (one thread per watching lock), as the builder's {@link WatchMode} decides; both
 * reconnect with back-off. The requests and their meaning are those of every Elector backend
 * (elector-kube-base); this class sends them through the builder's {@code ApiClient}.
 *
 * <p>Every request is bounded by the builder's requestTimeout; a call the elector cancels (past its
 * callTimeout) is not sent, or its OkHttp call is cancelled in flight. Thread-safe.
 */
public abstract class KubeObjectLock extends ForwardingKubeLock {
  /**
   * Builds the lock from the shared options.
   *
   * @param kind the object the lock keeps its record in
   * @throws IllegalStateException listing every problem with the options
   */
  protected KubeObjectLock(KubeLockBuilder<?> builder, ObjectKind kind) {
    this(new ObjectLock(builder.resolve(kind)));
  }

  private KubeObjectLock(ObjectLock lock) {
    super(lock);
  }
}
