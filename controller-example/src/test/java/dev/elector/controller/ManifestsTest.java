package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.util.Yaml;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The shipped manifests agree with the code: names, lease, environment and probes. */
class ManifestsTest {
  private static final Path DEPLOYMENT = Path.of("..", "deploy", "controller", "deployment.yaml");

  private static <T> List<T> documents(Path file, Class<T> type) throws Exception {
    return Yaml.loadAll(file.toFile()).stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void theControllerDeploymentRunsTwoReplicasWithThePodIdentityAndProbes() throws Exception {
    V1Deployment d = documents(DEPLOYMENT, V1Deployment.class).get(0);
    assertEquals(2, d.getSpec().getReplicas());
    assertEquals("ippool-controller", d.getSpec().getTemplate().getSpec().getServiceAccountName());
    V1Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> fieldRefs =
        c.getEnv().stream()
            .collect(
                Collectors.toMap(
                    V1EnvVar::getName, e -> e.getValueFrom().getFieldRef().getFieldPath()));
    assertEquals(
        Map.of("POD_NAMESPACE", "metadata.namespace", "POD_NAME", "metadata.name"), fieldRefs);
    assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
    assertEquals(8080, c.getPorts().get(0).getContainerPort());
    Flags flags = Flags.parse(c.getArgs().toArray(String[]::new));
    assertEquals(2, flags.config().build().agentReplicas(), "its args are valid flags");
  }

  @Test
  void theLeaseRoleNamesTheDefaultLease() throws Exception {
    List<V1PolicyRule> rules = documents(ControllerHarness.RBAC, V1Role.class).get(0).getRules();
    assertTrue(
        rules.stream()
            .anyMatch(
                r ->
                    List.of(ControllerConfig.DEFAULT_LEASE_NAME).equals(r.getResourceNames())
                        && r.getVerbs().containsAll(List.of("get", "patch"))));
  }

  @Test
  void theControllerMayBindExactlyTheAgentClusterRole() throws Exception {
    List<V1ClusterRole> roles = documents(ControllerHarness.RBAC, V1ClusterRole.class);
    assertEquals(
        List.of("ippool-controller", AgentAccess.NAME),
        roles.stream().map(r -> r.getMetadata().getName()).toList());
    V1PolicyRule bind =
        roles.get(0).getRules().stream()
            .filter(r -> r.getVerbs().contains("bind"))
            .findFirst()
            .orElseThrow();
    assertEquals(List.of("clusterroles"), bind.getResources());
    assertEquals(List.of(AgentAccess.NAME), bind.getResourceNames());
  }
}
