package dev.elector.bench;

import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import io.kubernetes.client.openapi.ApiClient;
import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/** Elector on a Lease, behind a probe. */
public final class ElectorCandidate implements Candidate {
  private final String identity;
  private final Probe probe = new Probe();
  private final LeaderElector elector;

  ElectorCandidate(
      ApiClient client,
      String namespace,
      String name,
      String identity,
      Timings timings,
      boolean watch,
      boolean sharedWatch,
      Recorder recorder,
      Executor io) {
    this(lease(client, namespace, name, identity, sharedWatch, io), timings, watch, recorder);
  }

  /** Elector on an already built lock, such as the fabric8 backend's. */
  ElectorCandidate(LeaderLock lock, Timings timings, boolean watch, Recorder recorder) {
    this(lock, timings, watch, recorder, ElectorListener.NONE);
  }

  /** As above, with a listener that sees every term (an overlap detector's, for example). */
  public ElectorCandidate(
      LeaderLock lock,
      Timings timings,
      boolean watch,
      Recorder recorder,
      ElectorListener listener) {
    this.identity = lock.identity();
    this.elector =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .listener(listener)
                .lock(new ProbedLock(lock, probe))
                .callbacks(
                    LeaderCallbacks.of(
                        term -> recorder.started(lock.identity()),
                        (term, why) -> recorder.stopped(lock.identity())))
                .leaseDuration(timings.lease())
                .renewDeadline(timings.renew())
                .retryPeriod(timings.retry())
                .watchWhenFollowing(watch)
                .build());
  }

  private static KubeLock lease(
      ApiClient client,
      String namespace,
      String name,
      String identity,
      boolean sharedWatch,
      Executor io) {
    KubeLock.Builder builder =
        LeaseLock.newBuilder(client).namespace(namespace).name(name).identity(identity);
    if (sharedWatch) {
      builder.sharedWatch(true); // forced; otherwise the builder's default watch mode
    }
    if (io != null) {
      builder.executor(io);
    }
    return builder.build();
  }

  @Override
  public String identity() {
    return identity;
  }

  @Override
  public Probe probe() {
    return probe;
  }

  @Override
  public void start() {
    elector.start();
  }

  @Override
  public void closeGracefully() {
    elector.close();
  }

  @Override
  public void crash() {
    probe.kill();
    elector.closeAsync();
  }

  @Override
  public void shutdown() {
    elector.closeAsync();
  }

  /** Passes calls through to the real lock until the probe is killed; then every call fails. */
  static final class ProbedLock implements LeaderLock {
    private final LeaderLock delegate;
    private final Probe probe;

    ProbedLock(LeaderLock delegate, Probe probe) {
      this.delegate = delegate;
      this.probe = probe;
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    private static <T> CompletionStage<T> gone(T value) {
      return CompletableFuture.completedFuture(value);
    }

    private static LockFailure dead() {
      return LockFailure.of(LockFailure.Kind.UNAVAILABLE, "the candidate's process is gone");
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      if (!probe.call()) {
        return gone(dead());
      }
      probe.mark(Probe.MarkKind.READ);
      return delegate
          .read(timeout)
          .thenApply(
              result -> {
                probe.mark(Probe.MarkKind.READ_DONE);
                return result;
              });
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
      if (!probe.call()) {
        return gone(dead());
      }
      probe.mark(Probe.MarkKind.WRITE);
      return delegate.create(record, timeout).thenApply(this::noteWrite);
    }

    @Override
    public CompletionStage<LockWrite> update(
        String expectedVersion, LeaderRecord record, Duration timeout) {
      if (!probe.call()) {
        return gone(dead());
      }
      probe.mark(Probe.MarkKind.WRITE);
      return delegate.update(expectedVersion, record, timeout).thenApply(this::noteWrite);
    }

    private LockWrite noteWrite(LockWrite result) {
      probe.mark(
          result instanceof LockWrite.Written
              ? Probe.MarkKind.WRITE_DONE
              : Probe.MarkKind.WRITE_FAILED);
      if (result instanceof LockWrite.Written && !probe.dead()) {
        probe.wrote();
      }
      return result;
    }

    @Override
    public Optional<Closeable> watch(Consumer<LockRead> listener) {
      return delegate.watch(
          event -> {
            probe.mark(
                event instanceof LockRead.Found found && found.record().isReleased()
                    ? Probe.MarkKind.WATCH_RELEASED
                    : Probe.MarkKind.WATCH_OTHER);
            listener.accept(event);
          });
    }
  }
}
