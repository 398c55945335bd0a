package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.PodEnvironment;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client-java builder: its client, its environment and its messages. */
class KubeLockBuilderTest {
  private static final String FILE = PodEnvironment.NAMESPACE_FILE;
  private final ApiClient client = new ApiClient();

  private LeaseLock.Builder builder(PodEnvironment environment) {
    return LeaseLock.newBuilder().apiClient(client).name("lock").environment(environment);
  }

  @Test
  void theEnvironmentGivesTheNamespaceAndTheIdentity() {
    // The rules themselves are LockBuilderTest's; this builder hands its environment to them.
    PodEnvironment pod =
        PodEnvironment.of(
            Map.of("POD_NAME", "web-7d9"), Map.of(FILE, "from-file\n"), "node-host", "ab12cd");

    LeaseLock lock = builder(pod).build();

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
                LeaseLock.newBuilder()
                    .name("Not_Valid")
                    .namespace("ns")
                    .requestTimeout(Duration.ZERO)
                    .build());

    assertTrue(e.getMessage().contains("apiClient is missing"), e.getMessage());
    assertTrue(e.getMessage().contains("\"Not_Valid\" is not a valid"), e.getMessage());
    assertTrue(e.getMessage().contains("requestTimeout PT0S"), e.getMessage());
  }

  @Test
  void describesTheLockAndDefaultsTheRequestTimeout() {
    LeaseLock lock =
        LeaseLock.newBuilder()
            .apiClient(client)
            .name("lock")
            .namespace("ns")
            .identity("me")
            .build();

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
