package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fabric8 builder: its client, its environment and its messages, as the client-java one. */
class Fabric8LockBuilderTest {
  private static final String FILE = PodEnvironment.NAMESPACE_FILE;
  private final KubernetesClient client =
      new KubernetesClientBuilder()
          .withConfig(
              new ConfigBuilder()
                  .withMasterUrl("http://127.0.0.1:9")
                  .withNamespace("fabric8-ns")
                  .build())
          .build();

  @AfterEach
  void closeClient() {
    client.close();
  }

  private KubeLock.Builder builder(PodEnvironment environment) {
    return Fabric8LeaseLock.newBuilder(client).name("lock").environment(environment);
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
  void theClientsConfiguredNamespaceIsNoFallback() {
    PodEnvironment nothing = PodEnvironment.of(Map.of(), Map.of(), "host", "x1");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> builder(nothing).build());

    assertTrue(e.getMessage().contains("POD_NAMESPACE"), e.getMessage());
    assertTrue(e.getMessage().contains(FILE), e.getMessage());
  }

  @Test
  void withoutANamespaceBothBackendsFailWithTheSameWords() {
    Map<String, String> none = Map.of();
    IllegalStateException fabric8 =
        assertThrows(
            IllegalStateException.class,
            () -> builder(PodEnvironment.of(none, none, "host", "x1")).build());
    IllegalStateException clientJava =
        assertThrows(
            IllegalStateException.class,
            () ->
                LeaseLock.newBuilder(new ApiClient())
                    .name("lock")
                    .environment(PodEnvironment.of(none, none, "host", "x1"))
                    .build());

    assertEquals(clientJava.getMessage(), fabric8.getMessage());
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                Fabric8ConfigMapLock.newBuilder(client)
                    .name("Not_Valid")
                    .namespace("ns")
                    .requestTimeout(Duration.ZERO)
                    .build());

    assertTrue(e.getMessage().startsWith("cannot build the ConfigMap lock: "), e.getMessage());
    assertTrue(e.getMessage().contains("\"Not_Valid\" is not a valid"), e.getMessage());
    assertTrue(e.getMessage().contains("requestTimeout PT0S"), e.getMessage());
  }

  @SuppressWarnings("NullAway") // the null a caller without NullAway may pass
  @Test
  void theClientIsRequiredWhereTheBuilderIsMade() {
    NullPointerException lease =
        assertThrows(NullPointerException.class, () -> Fabric8LeaseLock.newBuilder(null));
    NullPointerException configMap =
        assertThrows(NullPointerException.class, () -> Fabric8ConfigMapLock.newBuilder(null));

    assertEquals("client", lease.getMessage());
    assertEquals("client", configMap.getMessage());
  }

  @Test
  void describesTheLockAndNamesTheRoleRules() {
    KubeLock lease =
        Fabric8LeaseLock.newBuilder(client).name("lock").namespace("ns").identity("me").build();
    KubeLock configMap =
        Fabric8ConfigMapLock.newBuilder(client).name("lock").namespace("ns").identity("me").build();

    assertEquals("Lease ns/lock", lease.describe());
    assertEquals("ConfigMap ns/lock", configMap.describe());
    assertEquals(Duration.ofSeconds(5), lease.requestTimeout());
    assertEquals(
        "apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs:"
            + " [\"patch\"], resourceNames: [\"lock\"]",
        lease.roleRuleFor("patch"));
    assertEquals(
        "apiGroups: [\"\"], resources: [\"configmaps\"], verbs: [\"create\"]",
        configMap.roleRuleFor("create"));
  }
}
