package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A Lease under coordinated leader election ({@code spec.strategy} set) reads as a record naming
 * its strategy, and the lock sends no update over a version it read so, whoever asks: the same for
 * every client, since both backends are this lock over their own transport.
 */
class CoordinatedLeaseLockTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final String PATH = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/lock";

  private final FakeServer server = new FakeServer();
  private final ObjectLock lock = server.leaseLock(LockTime.SYSTEM);

  /** Answers GET with {@link #lease} and PATCH with a new version; notes every request. */
  private static final class FakeServer extends ScriptedTransport {
    Map<String, Object> lease = Map.of();

    @Override
    Reply answer(String method, String path, @Nullable Object body) {
      if (method.equals("GET")) {
        return new Reply(200, lease, null, Duration.ZERO);
      }
      return new Reply(
          200, Map.of("metadata", Map.of("resourceVersion", "99")), null, Duration.ZERO);
    }
  }

  private static Map<String, Object> lease(String version, @Nullable Object strategy) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("holderIdentity", "kube-controller-manager-a");
    spec.put("leaseDurationSeconds", 15);
    spec.put("renewTime", "2026-01-01T00:00:00.000000Z");
    spec.put("leaseTransitions", 4);
    if (strategy != null) {
      spec.put("strategy", strategy);
      spec.put("preferredHolder", "kube-controller-manager-b");
    }
    return Map.of(
        "metadata",
        Map.of("name", "lock", "namespace", "ns", "resourceVersion", version),
        "spec",
        spec);
  }

  private LockRead read() {
    return lock.read(TIMEOUT).toCompletableFuture().join();
  }

  private LockWrite update(String version) {
    LeaderRecord mine =
        new LeaderRecord("me", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 5);
    return lock.update(version, mine, TIMEOUT).toCompletableFuture().join();
  }

  @Test
  void aLeaseNamingAStrategyReadsAsARecordNamingIt() {
    server.lease = lease("7", "OldestEmulationVersion");
    LockRead.Found found = assertInstanceOf(LockRead.Found.class, read());
    assertEquals("OldestEmulationVersion", found.record().strategy());
    assertEquals("kube-controller-manager-a", found.record().holderIdentity());
    assertEquals(
        null, found.record().preferredHolder(), "spec.preferredHolder is the controller's");

    server.lease = lease("8", 3);
    assertEquals(
        "3",
        ((LockRead.Found) read()).record().strategy(),
        "a strategy of any type still means a controller chooses the holder");

    server.lease = lease("9", null);
    assertEquals(null, ((LockRead.Found) read()).record().strategy());
  }

  @Test
  void noUpdateIsSentOverAVersionReadUnderCoordinatedLeaderElection() {
    server.lease = lease("7", "OldestEmulationVersion");
    read();

    LockFailure refused = assertInstanceOf(LockFailure.class, update("7"));
    assertEquals(LockFailure.Kind.INVALID, refused.kind());
    assertTrue(refused.message().contains("OldestEmulationVersion"), refused.message());
    assertEquals(List.of("GET " + PATH), server.requests, "nothing but the read is sent");
  }

  @Test
  void aVersionWithoutAStrategyIsWrittenAsEver() {
    server.lease = lease("7", "OldestEmulationVersion");
    read();
    server.lease = lease("8", null); // the coordination ended
    read();

    assertEquals(new LockWrite.Written("99"), update("8"));
    assertEquals(List.of("GET " + PATH, "GET " + PATH, "PATCH " + PATH), server.requests);
  }
}
