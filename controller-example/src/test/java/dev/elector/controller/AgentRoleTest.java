package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.util.Yaml;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentRoleTest {
  private static final V1Role ROLE = AgentRole.render("tenant-a", List.of("net-48", "net-10"));
  private static final V1Role LEASES =
      AgentRole.renderLeases(
          "vm-dhcp-system", List.of("tenant-a/net-48", "tenant-b/net-10", "tenant-a/net-10"));

  private static List<String> text(V1Role role) {
    return role.getRules().stream()
        .map(
            r ->
                r.getApiGroups()
                    + " "
                    + r.getResources()
                    + (r.getResourceNames() == null || r.getResourceNames().isEmpty()
                        ? ""
                        : " " + r.getResourceNames())
                    + " "
                    + r.getVerbs())
        .toList();
  }

  @Test
  void thePoolNamespacesRoleNamesEveryPoolOfIt() {
    assertEquals("tenant-a", ROLE.getMetadata().getNamespace());
    assertEquals("vm-dhcp-agent", ROLE.getMetadata().getName());
    assertEquals(
        List.of(
            "[network.harvesterhci.io] [ippools] [net-10, net-48] [get, list, watch, patch]",
            "[network.harvesterhci.io] [ippools/status] [net-10, net-48] [patch]"),
        text(ROLE));
  }

  @Test
  void theLeaseRoleNamesTheLeaseOfEveryPoolInTheAgentsNamespaceAndLeavesOnlyCreateUnnamed() {
    assertEquals("vm-dhcp-system", LEASES.getMetadata().getNamespace());
    assertEquals("vm-dhcp-agent-leases", LEASES.getMetadata().getName());
    assertEquals(
        List.of(
            "[coordination.k8s.io] [leases] [dhcp-agent.tenant-a.net-10,"
                + " dhcp-agent.tenant-a.net-48, dhcp-agent.tenant-b.net-10]"
                + " [get, list, watch, patch]",
            "[coordination.k8s.io] [leases] [create]",
            "[] [events] [create]"),
        text(LEASES));
  }

  @Test
  void noRuleReachesLeasesOrPoolsWithoutNamesButCreate() {
    // A rule without resourceNames reaches every object of its resource in the namespace: other
    // applications' Leases included. Only create, which Kubernetes cannot restrict by name, may.
    List<String> problems = new ArrayList<>();
    List<V1PolicyRule> rules = new ArrayList<>(ROLE.getRules());
    rules.addAll(LEASES.getRules());
    for (V1PolicyRule rule : rules) {
      boolean named = rule.getResourceNames() != null && !rule.getResourceNames().isEmpty();
      boolean objects =
          rule.getResources().contains("leases") || rule.getResources().contains("ippools");
      if (objects && !named && !rule.getVerbs().equals(List.of("create"))) {
        problems.add(rule.getResources() + " " + rule.getVerbs() + " without resourceNames");
      }
    }
    assertEquals(List.of(), problems);
  }

  @Test
  void theRoleNeverGrantsUpdateOrDelete() {
    // Elector renews with patch; nothing of the agent updates or deletes.
    List<V1PolicyRule> rules = new ArrayList<>(ROLE.getRules());
    rules.addAll(LEASES.getRules());
    for (V1PolicyRule rule : rules) {
      assertFalse(rule.getVerbs().contains("update"), rule.toString());
      assertFalse(rule.getVerbs().contains("delete"), rule.toString());
      assertFalse(rule.getVerbs().contains("*"), rule.toString());
    }
  }

  @Test
  void thereIsNoRoleForNoPools() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AgentRole.render("ns", List.of()));
    assertTrue(e.getMessage().contains("without resourceNames"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> AgentRole.renderLeases("ns", List.of()));
  }

  @Test
  void rulesCompareAsTheServerReturnsThem() throws Exception {
    V1Role live = KubeObjects.copy(ROLE, V1Role.class);
    live.getMetadata().resourceVersion("7").uid("u");
    assertTrue(AgentRole.sameRules(live, ROLE));
    assertFalse(AgentRole.sameRules(live, AgentRole.render("tenant-a", List.of("net-48"))));
    V1Role widened = KubeObjects.copy(LEASES, V1Role.class);
    widened.getRules().get(0).resourceNames(null);
    assertFalse(AgentRole.sameRules(widened, LEASES));
  }

  @Test
  void theStandaloneAgentManifestGrantsWhatTheControllerGrantsForItsPool() throws Exception {
    // the standalone agent runs in its pool's namespace, where it needs both Roles' rules
    V1Role standalone =
        Yaml.loadAll(Path.of("..", "deploy", "dhcp-agent", "rbac.yaml").toFile()).stream()
            .filter(V1Role.class::isInstance)
            .map(V1Role.class::cast)
            .findFirst()
            .orElseThrow();
    List<String> granted = new ArrayList<>(text(AgentRole.render("default", List.of("net-48"))));
    granted.addAll(text(AgentRole.renderLeases("default", List.of("default/net-48"))));
    assertEquals(granted, text(standalone));
  }
}
