package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client-java lock builder: its client, its environment and its messages. */
class LeaseLockBuilderTest {
  private static final String FILE = PodEnvironment.NAMESPACE_FILE;
  private final ApiClient client = new ApiClient();

  private KubeLock.Builder builder(PodEnvironment environment) {
    return LeaseLock.newBuilder(client).name("lock").environment(environment);
  }

  @Test
  void theEnvironmentGivesTheNamespaceAndTheIdentity() {
    // The rules themselves are LockBuilderTest's; this builder hands its environment to them.
    PodEnvironment pod =
        PodEnvironment.of(
            Map.of("POD_NAME", "web-7d9"), Map.of(FILE, "from-file\n"), "node-host", "ab12cd");

    KubeLock lock = builder(pod).build();

    assertEquals("from-file", lock.namespace());
    assertEquals("web-7d9_ab12cd", lock.identity());
  }

  @Test
  void withoutANamespaceBuildFailsSayingWhereToSetIt() {
    PodEnvironment nothing = PodEnvironment.of(Map.of(), Map.of(), "host", "x1");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> builder(nothing).build());

    assertTrue(e.getMessage().contains("POD_NAMESPACE"), e.getMessage());
    assertTrue(e.getMessage().contains(FILE), e.getMessage());
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                LeaseLock.newBuilder(client)
                    .name("Not_Valid")
                    .namespace("ns")
                    .requestTimeout(Duration.ZERO)
                    .build());

    assertTrue(e.getMessage().contains("\"Not_Valid\" is not a valid"), e.getMessage());
    assertTrue(e.getMessage().contains("requestTimeout PT0S"), e.getMessage());
  }

  @SuppressWarnings("NullAway") // the null a caller without NullAway may pass
  @Test
  void theClientIsRequiredWhereTheBuilderIsMade() {
    NullPointerException lease =
        assertThrows(NullPointerException.class, () -> LeaseLock.newBuilder(null));

    assertEquals("apiClient", lease.getMessage());
  }

  @Test
  void describesTheLockAndDefaultsTheRequestTimeout() {
    KubeLock lock =
        LeaseLock.newBuilder(client).name("lock").namespace("ns").identity("me").build();

    assertEquals("Lease ns/lock", lock.describe());
    assertEquals(Duration.ofSeconds(5), lock.requestTimeout());
    assertEquals(
        "apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs:"
            + " [\"patch\"], resourceNames: [\"lock\"]",
        lock.roleRuleFor("patch"));
    assertEquals(
        "apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs:" + " [\"create\"]",
        lock.roleRuleFor("create"));
  }
}
