package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.TermEnd;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * close() whose release write conflicts on a real API server: another writer takes the Lease after
 * the leader's last renewal and just before its release arrives, so the server answers 409. The new
 * holder's record must stay, the stop callback run once, and close end without retrying.
 */
@KubeTest
class ReleaseConflictIT {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(500);
  private static final String NAME = "release-conflict";

  private ApiClient admin;
  private String namespace;
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final List<TermEnd> stops = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(KubeCluster cluster, KubeNamespace namespace) {
    this.admin = cluster.admin();
    this.namespace = namespace.name();
  }

  /**
   * The leader's Lease lock; when the first release is about to be written, another holder takes
   * the Lease first, through the server, so the release's resourceVersion is stale when it arrives.
   */
  private final class TakenBeforeRelease implements LeaderLock {
    private final LeaderLock lease;
    private final AtomicBoolean takenOver = new AtomicBoolean();

    TakenBeforeRelease(LeaderLock lease) {
      this.lease = lease;
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
      return lease.create(record, timeout);
    }

    @Override
    public String identity() {
      return lease.identity();
    }

    @Override
    public String describe() {
      return lease.describe();
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      return lease
          .read(timeout)
          .thenApply(
              result -> {
                calls.add(
                    "read "
                        + (result instanceof LockRead.Found found
                            ? "holder " + found.record().holderIdentity()
                            : result.getClass().getSimpleName()));
                return result;
              });
    }

    @Override
    public CompletionStage<LockWrite> update(
        String expectedVersion, LeaderRecord record, Duration timeout) {
      if (!record.isReleased() || !takenOver.compareAndSet(false, true)) {
        return lease
            .update(expectedVersion, record, timeout)
            .thenApply(
                result -> {
                  if (record.isReleased()) {
                    calls.add("release " + result.getClass().getSimpleName());
                  }
                  return result;
                });
      }
      return CompletableFuture.runAsync(() -> takeOver("successor", 42))
          .thenCompose(ignored -> lease.update(expectedVersion, record, timeout))
          .thenApply(
              result -> {
                calls.add("release " + result.getClass().getSimpleName());
                return result;
              });
    }
  }

  private void takeOver(String holder, int transitions) {
    CoordinationV1Api api = new CoordinationV1Api(admin);
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    try {
      V1Lease current = api.readNamespacedLease(NAME, namespace).execute();
      api.replaceNamespacedLease(
              NAME,
              namespace,
              current.spec(
                  new V1LeaseSpec()
                      .holderIdentity(holder)
                      .leaseDurationSeconds(15)
                      .acquireTime(now)
                      .renewTime(now)
                      .leaseTransitions(transitions)))
          .execute();
      calls.add("taken by " + holder);
    } catch (ApiException e) {
      throw new CompletionException(e);
    }
  }

  private V1LeaseSpec stored() throws ApiException {
    return new CoordinationV1Api(admin).readNamespacedLease(NAME, namespace).execute().getSpec();
  }

  @Test
  void aReleaseAnsweredWith409LeavesTheNewHolderAndCloseEndsWithoutRetrying() throws Exception {
    KubeLock lease =
        LeaseLock.newBuilder(admin)
            .namespace(namespace)
            .name(NAME)
            .identity("leaver")
            .requestTimeout(RENEW.dividedBy(2))
            .build();
    LeaderElector leaver =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(new TakenBeforeRelease(lease))
                .leaseDuration(LEASE)
                .renewDeadline(RENEW)
                .retryPeriod(RETRY)
                .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> stops.add(reason)))
                .build());
    await("leaver leads").atMost(Duration.ofSeconds(15)).until(leaver::isLeader);
    long renewed = leaver.stats().calls(LockCall.RENEW, CallOutcome.OK);
    await("leaver renews")
        .atMost(Duration.ofSeconds(10))
        .until(() -> leaver.stats().calls(LockCall.RENEW, CallOutcome.OK) > renewed);
    calls.clear(); // the reads that found the Lease absent and free

    leaver.close();

    ElectorStats stats = leaver.stats();
    assertEquals(
        List.of("taken by successor", "release Conflict", "read holder successor"),
        calls,
        "one release, answered 409, then one read that shows the new holder");
    assertEquals(1, stats.calls(LockCall.RELEASE, CallOutcome.CONFLICT));
    assertEquals(List.of(TermEnd.CLOSED), stops, "the stop callback ran once");
    V1LeaseSpec spec = stored();
    assertEquals("successor", spec.getHolderIdentity(), "the new holder's record stays");
    assertEquals(42, spec.getLeaseTransitions());
    assertEquals(15, spec.getLeaseDurationSeconds());
    assertFalse(leaver.stats().healthy(), "closed: " + leaver.stats().status());
  }
}
