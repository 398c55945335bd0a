package dev.elector.bench;

import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubernetes.client.extended.leaderelection.Lock;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;

/**
 * client-java-extended's LeaderElector on its LeaseLock, behind a probe. Its {@code run} blocks, so
 * each candidate has a thread of its own, as the library's users write it.
 */
public final class ClientJavaCandidate implements Candidate {
  private final String identity;
  private final Probe probe = new Probe();
  private final LeaderElector elector;
  private final Thread runner;
  private volatile boolean closed;

  ClientJavaCandidate(
      ApiClient client,
      String namespace,
      String name,
      String identity,
      Timings timings,
      Recorder recorder) {
    this(new LeaseLock(namespace, name, identity, client), timings, recorder);
  }

  /** On any of the library's locks (its ConfigMapLock, for example); the identity is the lock's. */
  public ClientJavaCandidate(Lock unprobed, Timings timings, Recorder recorder) {
    String identity = unprobed.identity();
    this.identity = identity;
    Lock lock = new ProbedLock(unprobed, probe);
    this.elector =
        new LeaderElector(
            new LeaderElectionConfig(lock, timings.lease(), timings.renew(), timings.retry()));
    this.runner =
        new Thread(
            () -> elector.run(() -> recorder.started(identity), () -> recorder.stopped(identity)),
            "client-java-" + identity);
    runner.setDaemon(true);
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
    runner.start();
  }

  @Override
  public void closeGracefully() {
    shutdown();
  }

  @Override
  public void crash() {
    probe.kill();
    Thread stopper = new Thread(this::shutdown, "client-java-stop-" + identity);
    stopper.setDaemon(true);
    stopper.start();
  }

  @Override
  public synchronized void shutdown() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      elector.close();
    } catch (RuntimeException e) {
      // a dead candidate's release fails; that is the point
    }
  }

  /** Passes calls through until the probe is killed; then every call fails. */
  static final class ProbedLock implements Lock {
    private final Lock delegate;
    private final Probe probe;

    ProbedLock(Lock delegate, Probe probe) {
      this.delegate = delegate;
      this.probe = probe;
    }

    @Override
    public LeaderElectionRecord get() throws ApiException {
      if (!probe.call()) {
        throw new ApiException("the candidate's process is gone");
      }
      return delegate.get();
    }

    @Override
    public boolean create(LeaderElectionRecord record) {
      if (!probe.call()) {
        return false;
      }
      return noted(delegate.create(record));
    }

    @Override
    public boolean update(LeaderElectionRecord record) {
      if (!probe.call()) {
        return false;
      }
      return noted(delegate.update(record));
    }

    private boolean noted(boolean written) {
      if (written && !probe.dead()) {
        probe.wrote();
      }
      return written;
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
}
