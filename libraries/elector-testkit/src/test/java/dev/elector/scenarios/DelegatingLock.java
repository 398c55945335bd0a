package dev.elector.scenarios;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.io.Closeable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/** A lock that passes every call to another: the base of the scenarios' recording locks. */
abstract class DelegatingLock implements LeaderLock {
  private final LeaderLock delegate;

  DelegatingLock(LeaderLock delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  LeaderLock delegate() {
    return delegate;
  }

  @Override
  public CompletionStage<LockRead> read(Duration timeout) {
    return delegate.read(timeout);
  }

  @Override
  public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
    return delegate.create(record, timeout);
  }

  @Override
  public CompletionStage<LockWrite> update(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    return delegate.update(expectedVersion, record, timeout);
  }

  @Override
  public Optional<Closeable> watch(Consumer<LockRead> listener) {
    return delegate.watch(listener);
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
