package dev.elector.bench;

import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockWrite;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubernetes.client.extended.leaderelection.LeaderElectionRecord;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Date;
import java.util.concurrent.TimeUnit;
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
 * One renewal of a held lock, as each implementation performs it on the wire: Elector's single
 * conditional write (in memory, on a Lease, on a ConfigMap), the anchors' read followed by a write
 * through their own lock classes, and the floor: a bare client-java read and replace of the same
 * Lease.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RenewBenchmark {
  /** What an elector gives each call by default (renewDeadline / 2). */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  static final String[] SUBJECTS = {
    "elector-memory",
    "elector-lease",
    "elector-configmap",
    "floor-lease-read-replace",
    "client-java-lease",
    "fabric8-lease"
  };

  @Param({
    "elector-memory",
    "elector-lease",
    "elector-configmap",
    "floor-lease-read-replace",
    "client-java-lease",
    "fabric8-lease"
  })
  public String subject;

  private ApiClient client;
  private KubernetesClient fabric8;
  private String namespace;
  private String name;
  private LeaderLock electorLock;
  private String version;
  private LeaderRecord record;
  private CoordinationV1Api coordination;
  private io.kubernetes.client.extended.leaderelection.Lock clientJavaLock;
  private io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock fabric8Lock;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    namespace = subject.equals("elector-memory") ? "memory" : BenchSetup.namespace();
    name = "renew-" + subject + "-" + System.nanoTime();
    String identity = "bench-renewer";
    Instant now = Instant.now();
    record = new LeaderRecord(identity, Duration.ofSeconds(15), now, now, 1);
    switch (subject) {
      case "elector-memory" -> electorLock = InMemoryLockStore.create(name).lockFor(identity);
      case "elector-lease" ->
          electorLock =
              LeaseLock.newBuilder(client())
                  .namespace(namespace)
                  .name(name)
                  .identity(identity)
                  .build();
      case "elector-configmap" ->
          electorLock =
              ConfigMapLock.newBuilder(client())
                  .namespace(namespace)
                  .name(name)
                  .identity(identity)
                  .build();
      case "floor-lease-read-replace" -> {
        LeaderLock creator =
            LeaseLock.newBuilder(client())
                .namespace(namespace)
                .name(name)
                .identity(identity)
                .build();
        creator.create(record, CALL_TIMEOUT).toCompletableFuture().join();
        coordination = new CoordinationV1Api(client());
      }
      case "client-java-lease" -> {
        clientJavaLock =
            new io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock(
                namespace, name, identity, client());
        Date date = new Date();
        if (!clientJavaLock.create(new LeaderElectionRecord(identity, 15, date, date, 0))) {
          throw new IllegalStateException("client-java LeaseLock.create failed");
        }
      }
      case "fabric8-lease" -> {
        fabric8 = BenchSetup.fabric8();
        fabric8Lock =
            new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock(
                namespace, name, identity);
        ZonedDateTime time = ZonedDateTime.now(ZoneOffset.UTC);
        fabric8Lock.create(
            fabric8,
            new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                .LeaderElectionRecord(identity, Duration.ofSeconds(15), time, time, 0));
      }
      default -> throw new IllegalArgumentException(subject);
    }
    if (electorLock != null) {
      LockWrite created = electorLock.create(record, CALL_TIMEOUT).toCompletableFuture().join();
      version = ((LockWrite.Written) created).version();
    }
  }

  private ApiClient client() throws Exception {
    if (client == null) {
      client = BenchSetup.apiClient();
    }
    return client;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (fabric8 != null) {
      fabric8.close();
    }
  }

  @Benchmark
  public Object renew() throws Exception {
    switch (subject) {
      case "floor-lease-read-replace" -> {
        V1Lease lease = coordination.readNamespacedLease(name, namespace).execute();
        lease.getSpec().setRenewTime(OffsetDateTime.now(ZoneOffset.UTC));
        return coordination.replaceNamespacedLease(name, namespace, lease).execute();
      }
      case "client-java-lease" -> {
        LeaderElectionRecord current = clientJavaLock.get();
        current.setRenewTime(new Date());
        if (!clientJavaLock.update(current)) {
          throw new IllegalStateException("client-java LeaseLock.update failed");
        }
        return current;
      }
      case "fabric8-lease" -> {
        var current = fabric8Lock.get(fabric8);
        var renewed = current.toBuilder().renewTime(ZonedDateTime.now(ZoneOffset.UTC)).build();
        fabric8Lock.update(fabric8, renewed);
        return renewed;
      }
      default -> {
        LockWrite written =
            electorLock
                .update(version, record.withRenewTime(Instant.now()), CALL_TIMEOUT)
                .toCompletableFuture()
                .join();
        if (!(written instanceof LockWrite.Written ok)) {
          throw new IllegalStateException("renewal failed: " + written);
        }
        version = ok.version();
        return written;
      }
    }
  }
}
