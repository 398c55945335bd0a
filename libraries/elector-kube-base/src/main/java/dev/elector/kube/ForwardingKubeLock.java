package dev.elector.kube;

import dev.elector.ElectorListener;
import dev.elector.ListeningLock;
import dev.elector.lock.ForwardingWatchableLock;
import java.time.Duration;

/**
 * A {@link KubeLock} that forwards every call to another, also as a {@link ListeningLock}: the
 * public lock classes of the Kubernetes backends are thin shells around the one implementation in
 * elector-kube-base, so that none of its internals is part of their API.
 */
public abstract class ForwardingKubeLock extends ForwardingWatchableLock
    implements KubeLock, ListeningLock {
  private final KubeLock kubeLock;
  private final ListeningLock listeningLock;

  /**
   * Forwards to {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected <L extends KubeLock & ListeningLock> ForwardingKubeLock(L delegate) {
    super(delegate);
    this.kubeLock = delegate;
    this.listeningLock = delegate;
  }

  @Override
  public String namespace() {
    return kubeLock.namespace();
  }

  @Override
  public String name() {
    return kubeLock.name();
  }

  @Override
  public Duration requestTimeout() {
    return kubeLock.requestTimeout();
  }

  @Override
  public String roleRuleFor(String verb) {
    return kubeLock.roleRuleFor(verb);
  }

  @Override
  public ElectorListener electorListener() {
    return listeningLock.electorListener();
  }

  @Override
  public String toString() {
    return kubeLock.toString();
  }
}
