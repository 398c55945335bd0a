package dev.elector.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * A lock that passes every call to another lock: the base for decorators that count, delay, fail or
 * log some calls and pass the rest on unchanged. A subclass overrides only the calls it changes.
 *
 * <p>A decorator of a {@link WatchableLock} that should stay watchable extends {@link
 * ForwardingWatchableLock} instead: the elector watches a lock only if it is a {@code
 * WatchableLock}, and a {@code ForwardingLock} is not one.
 */
public abstract class ForwardingLock implements LeaderLock {
  private final LeaderLock delegate;

  /**
   * Forwards to {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingLock(LeaderLock delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The lock calls are passed to. */
  protected LeaderLock delegate() {
    return delegate;
  }

  @Override
  public CompletionStage<LockRead> read() {
    return delegate.read();
  }

  @Override
  public CompletionStage<LockWrite> create(LeaderRecord record) {
    return delegate.create(record);
  }

  @Override
  public CompletionStage<LockWrite> update(String expectedVersion, LeaderRecord record) {
    return delegate.update(expectedVersion, record);
  }

  @Override
  public void useCallTimeout(Duration callTimeout) {
    delegate.useCallTimeout(callTimeout);
  }

  @Override
  public String identity() {
    return delegate.identity();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }
}
