package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.Yaml;
import java.nio.file.Path;
import java.util.Collections;
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
  void theControllerHoldsEveryRuleOfTheAgentsRolesAndNeitherBindNorEscalate() throws Exception {
    List<V1ClusterRole> roles = documents(ControllerHarness.RBAC, V1ClusterRole.class);
    assertEquals(
        List.of("ippool-controller"), roles.stream().map(r -> r.getMetadata().getName()).toList());
    List<V1PolicyRule> held = roles.get(0).getRules();
    // The API server lets the controller write the agents' Roles, and bind them, only when it
    // holds every rule of them itself (or holds escalate and bind, which it must not): the pool
    // namespaces' Role anywhere (the ClusterRole), the Lease Role in its own namespace.
    assertHolds(held, AgentRole.render("ns", List.of("pool-a", "pool-b")), "ClusterRole");
    List<V1PolicyRule> own = new java.util.ArrayList<>();
    documents(ControllerHarness.RBAC, V1Role.class).forEach(r -> own.addAll(r.getRules()));
    assertHolds(
        own,
        AgentRole.renderLeases("vm-dhcp-system", List.of("a/pool-a", "b/pool-b")),
        "Roles of vm-dhcp-system");
    for (V1PolicyRule rule : held) {
      assertFalse(rule.getVerbs().contains("bind"), rule.toString());
      assertFalse(rule.getVerbs().contains("escalate"), rule.toString());
      assertFalse(rule.getVerbs().contains("*"), rule.toString());
      assertFalse(
          rule.getResources().contains("leases"),
          "the agents' Leases are in the controller's namespace; no Lease rule is cluster-wide: "
              + rule);
      assertFalse(
          rule.getResources().contains("deployments")
              && (rule.getVerbs().contains("create") || rule.getVerbs().contains("update")),
          "agent Deployments are written in the controller's namespace only: " + rule);
    }
    for (V1Role role : documents(ControllerHarness.RBAC, V1Role.class)) {
      assertEquals("vm-dhcp-system", role.getMetadata().getNamespace());
    }
  }

  private static void assertHolds(List<V1PolicyRule> held, V1Role agents, String where) {
    for (V1PolicyRule rule : agents.getRules()) {
      for (String verb : rule.getVerbs()) {
        for (String resource : rule.getResources()) {
          List<String> names =
              rule.getResourceNames() == null ? List.of() : rule.getResourceNames();
          for (String name : names.isEmpty() ? Collections.<String>singletonList(null) : names) {
            assertTrue(
                held.stream()
                    .anyMatch(h -> covers(h, rule.getApiGroups().get(0), resource, verb, name)),
                "the controller's " + where + " must hold " + verb + " " + resource + " " + name);
          }
        }
      }
    }
  }

  @Test
  void theControllerChangesRolesAndBindingsOnlyByTheAgentsName() throws Exception {
    List<V1PolicyRule> held =
        new java.util.ArrayList<>(
            documents(ControllerHarness.RBAC, V1ClusterRole.class).get(0).getRules());
    documents(ControllerHarness.RBAC, V1Role.class).forEach(r -> held.addAll(r.getRules()));
    for (V1PolicyRule rule : held) {
      if (rule.getResources().contains("roles")
          || rule.getResources().contains("rolebindings")
          || rule.getResources().contains("serviceaccounts")) {
        boolean createOnly = rule.getVerbs().equals(List.of("create"));
        assertTrue(
            createOnly
                || List.of(AgentAccess.NAME).equals(rule.getResourceNames())
                || List.of(AgentRole.LEASES).equals(rule.getResourceNames()),
            "only create may go without resourceNames ["
                + AgentAccess.NAME
                + "] or ["
                + AgentRole.LEASES
                + "]: "
                + rule);
      }
      if (rule.getResources().contains("leases")) {
        assertFalse(rule.getVerbs().contains("update"), "leases are renewed with patch: " + rule);
        assertFalse(rule.getVerbs().contains("delete"), rule.toString());
      }
    }
  }

  /** Whether {@code rule} allows {@code verb} on the object {@code name} (null: no name). */
  private static boolean covers(
      V1PolicyRule rule, String group, String resource, String verb, String name) {
    List<String> names = rule.getResourceNames();
    return rule.getApiGroups().contains(group)
        && rule.getResources().contains(resource)
        && rule.getVerbs().contains(verb)
        && (names == null || names.isEmpty() || (name != null && names.contains(name)));
  }

  @Test
  void theShippedWebhookConfigurationsAreWhatRegistrationWrites() throws Exception {
    Path webhooks = Path.of("..", "deploy", "webhook", "webhooks.yaml");
    WebhookRegistration registration =
        new WebhookRegistration(
            WebhookRegistration.DEFAULT_NAME, null, "vm-dhcp-system/vm-dhcp-webhook:443", Map.of());
    assertEquals(
        registration.validating(null),
        documents(webhooks, V1ValidatingWebhookConfiguration.class).get(0));
    assertEquals(
        registration.mutating(null),
        documents(webhooks, V1MutatingWebhookConfiguration.class).get(0));
    List<String> patched = new java.util.ArrayList<>();
    com.google.gson.JsonParser.parseString(
            java.nio.file.Files.readString(
                Path.of("..", "deploy", "webhook", "controller-patch.json")))
        .getAsJsonArray()
        .forEach(
            op -> {
              var value = op.getAsJsonObject().get("value");
              if (value.isJsonPrimitive()) {
                patched.add(value.getAsString());
              }
            });
    V1Container c =
        documents(DEPLOYMENT, V1Deployment.class)
            .get(0)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    List<String> args = new java.util.ArrayList<>(c.getArgs());
    args.addAll(patched);
    Flags flags = Flags.parse(args.toArray(String[]::new));
    assertEquals(8443, flags.webhookAddr().port(), "the patched args are valid flags");
    assertEquals("vm-dhcp-webhook-tls", flags.webhookSecret());
    assertTrue(flags.registerWebhooks());
  }
}
