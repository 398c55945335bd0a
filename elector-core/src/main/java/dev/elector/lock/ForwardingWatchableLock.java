package dev.elector.lock;

import java.util.function.Consumer;

/**
 * A {@link ForwardingLock} of a {@link WatchableLock} that passes {@link #watch} on as well, so the
 * decorated lock is still watched rather than polled.
 */
public abstract class ForwardingWatchableLock extends ForwardingLock implements WatchableLock {
  private final WatchableLock delegate;

  /**
   * Forwards to {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingWatchableLock(WatchableLock delegate) {
    super(delegate);
    this.delegate = delegate;
  }

  @Override
  protected WatchableLock delegate() {
    return delegate;
  }

  @Override
  public Subscription watch(Consumer<LockRead> listener) {
    return delegate.watch(listener);
  }
}
