package dev.elector.kube;

import dev.elector.ElectorListener;
import dev.elector.ListeningLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.Cancellable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The base of the public lock classes of the Kubernetes backends ({@code LeaseLock}, {@code
 * ConfigMapLock}, {@code Fabric8LeaseLock}, {@code Fabric8ConfigMapLock}): each is a thin shell
 * that passes every call, with its timeout, straight to the one lock implementation of
 * elector-kube-base, so that none of that implementation's internals is part of their API. One hop
 * from a public lock to the requests it sends.
 */
public abstract class ForwardingKubeLock implements KubeLock, ListeningLock {
  private final KubeLock delegate;
  private final ListeningLock listening;

  /**
   * Forwards to {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected <L extends KubeLock & ListeningLock> ForwardingKubeLock(L delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.listening = delegate;
  }

  @Override
  public final CompletionStage<LockRead> read(Duration timeout) {
    return delegate.read(timeout);
  }

  @Override
  public final CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
    return delegate.create(record, timeout);
  }

  @Override
  public final CompletionStage<LockWrite> update(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    return delegate.update(expectedVersion, record, timeout);
  }

  @Override
  public final Optional<Cancellable> watch(Consumer<LockRead> listener) {
    return delegate.watch(listener);
  }

  @Override
  public final String identity() {
    return delegate.identity();
  }

  @Override
  public final String describe() {
    return delegate.describe();
  }

  @Override
  public final String namespace() {
    return delegate.namespace();
  }

  @Override
  public final String name() {
    return delegate.name();
  }

  @Override
  public final Duration requestTimeout() {
    return delegate.requestTimeout();
  }

  @Override
  public final String roleRuleFor(String verb) {
    return delegate.roleRuleFor(verb);
  }

  @Override
  public final ElectorListener electorListener() {
    return listening.electorListener();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
