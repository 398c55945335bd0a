package dev.elector.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.util.concurrent.CompletableFuture;

/** fabric8's LeaderElector on its LeaseLock with releaseOnCancel, behind a probe. */
public final class Fabric8Candidate implements Candidate {
  private final String identity;
  private final Probe probe = new Probe();
  private final LeaderElector elector;
  private volatile CompletableFuture<?> running;

  Fabric8Candidate(
      KubernetesClient client,
      String namespace,
      String name,
      String identity,
      Timings timings,
      Recorder recorder) {
    this(client, name, new LeaseLock(namespace, name, identity), timings, recorder);
  }

  /**
   * On any of the library's locks (its ConfigMapLock, for example); the identity is the lock's,
   * {@code name} the election's name.
   */
  public Fabric8Candidate(
      KubernetesClient client, String name, Lock unprobed, Timings timings, Recorder recorder) {
    String identity = unprobed.identity();
    this.identity = identity;
    Lock lock = new ProbedLock(unprobed, probe);
    this.elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(name)
                    .withLock(lock)
                    .withLeaseDuration(timings.lease())
                    .withRenewDeadline(timings.renew())
                    .withRetryPeriod(timings.retry())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            () -> recorder.started(identity),
                            () -> recorder.stopped(identity),
                            leader -> {}))
                    .build())
            .build();
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
    running = elector.start();
  }

  /**
   * Whether its elector still runs: fabric8's ends for good when a read fails with an unchecked
   * exception, such as on a Lease without acquireTime.
   */
  public boolean running() {
    CompletableFuture<?> future = running;
    return future != null && !future.isDone();
  }

  @Override
  public void closeGracefully() {
    shutdown();
  }

  @Override
  public void crash() {
    probe.kill();
    shutdown();
  }

  @Override
  public void shutdown() {
    CompletableFuture<?> future = running;
    if (future != null) {
      future.cancel(true);
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

    private static KubernetesClientException dead() {
      return new KubernetesClientException("the candidate's process is gone");
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      if (!probe.call()) {
        throw dead();
      }
      return delegate.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      if (!probe.call()) {
        throw dead();
      }
      delegate.create(client, record);
      noteWrite();
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      if (!probe.call()) {
        throw dead();
      }
      delegate.update(client, record);
      noteWrite();
    }

    private void noteWrite() {
      if (!probe.dead()) {
        probe.wrote();
      }
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
