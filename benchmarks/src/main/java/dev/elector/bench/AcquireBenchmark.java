package dev.elector.bench;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubernetes.client.openapi.ApiClient;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Acquiring a free lock: from starting a new candidate on a lock nobody holds until its start
 * callback runs, default timings (15 s / 10 s / 2 s). One candidate per invocation, on a fresh lock
 * each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AcquireBenchmark {
  static final String[] SUBJECTS = {
    "elector-memory", "elector-lease", "elector-configmap", "client-java-lease", "fabric8-lease"
  };
  private static final AtomicLong COUNTER = new AtomicLong();

  @Param({
    "elector-memory",
    "elector-lease",
    "elector-configmap",
    "client-java-lease",
    "fabric8-lease"
  })
  public String subject;

  private ApiClient client;
  private KubernetesClient fabric8;
  private String namespace;
  private Recorder recorder;
  private Candidate candidate;
  private LeaderElector elector;
  private CountDownLatch started;

  @Setup(Level.Trial)
  public void setUpTrial() throws Exception {
    if (!subject.equals("elector-memory")) {
      namespace = BenchSetup.namespace();
      client = BenchSetup.apiClient();
    }
    if (subject.equals("fabric8-lease")) {
      fabric8 = BenchSetup.fabric8();
    }
  }

  @TearDown(Level.Trial)
  public void tearDownTrial() {
    if (fabric8 != null) {
      fabric8.close();
    }
  }

  @Setup(Level.Invocation)
  public void prepare() {
    String name = "acquire-" + subject + "-" + System.nanoTime() + "-" + COUNTER.incrementAndGet();
    String identity = name + "-c";
    started = new CountDownLatch(1);
    recorder =
        new Recorder() {
          @Override
          public void started(String who) {
            super.started(who);
            started.countDown();
          }
        };
    candidate = null;
    elector = null;
    Timings t = Timings.DEFAULT;
    switch (subject) {
      case "elector-memory", "elector-lease", "elector-configmap" -> {
        LeaderLock lock =
            switch (subject) {
              case "elector-memory" -> InMemoryLockStore.create(name).lockFor(identity);
              case "elector-lease" ->
                  LeaseLock.newBuilder(client)
                      .namespace(namespace)
                      .name(name)
                      .identity(identity)
                      .build();
              default ->
                  ConfigMapLock.newBuilder(client)
                      .namespace(namespace)
                      .name(name)
                      .identity(identity)
                      .build();
            };
        elector =
            LeaderElector.create(
                ElectorConfig.newBuilder()
                    .lock(lock)
                    .callbacks(LeaderCallbacks.of(term -> started.countDown(), (term, why) -> {}))
                    .leaseDuration(t.lease())
                    .renewDeadline(t.renew())
                    .retryPeriod(t.retry())
                    .releaseOnClose(false)
                    .build());
      }
      case "client-java-lease" ->
          candidate = new ClientJavaCandidate(client, namespace, name, identity, t, recorder);
      case "fabric8-lease" ->
          candidate = new Fabric8Candidate(fabric8, namespace, name, identity, t, recorder);
      default -> throw new IllegalArgumentException(subject);
    }
  }

  @TearDown(Level.Invocation)
  public void finish() {
    if (elector != null) {
      elector.close();
    }
    if (candidate != null) {
      candidate.shutdown();
    }
  }

  @Benchmark
  public boolean acquire() throws InterruptedException {
    if (elector != null) {
      elector.start();
    } else {
      candidate.start();
    }
    if (!started.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException(subject + " did not acquire a free lock within 60 s");
    }
    return true;
  }
}
