package dev.elector.controller;

import dev.elector.ippool.NetworkApis;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Renders the Role {@value #NAME} of the DHCP agents in one namespace. Every rule that reaches
 * existing objects names them: the namespace's IPPools and their agents' Leases ({@link
 * AgentDeployment#lockName}), so an agent cannot read or take another application's Lease. Only
 * {@code create} on leases is left unnamed, because Kubernetes cannot restrict create by name.
 *
 * <p>The agents of a namespace share one ServiceAccount, so a Role per pool would grant them the
 * same union; one Role per namespace has a fixed name, which lets the controller's own rules on
 * Roles name it too (deploy/controller/rbac.yaml).
 */
final class AgentRole {
  /** Name of the Role, and of the RoleBinding that binds it to the agents' ServiceAccount. */
  static final String NAME = AgentDeployment.SERVICE_ACCOUNT;

  static final String RBAC_GROUP = "rbac.authorization.k8s.io";

  private AgentRole() {}

  /**
   * The Role for the pools {@code poolNames} of {@code namespace}.
   *
   * @throws IllegalArgumentException when {@code poolNames} is empty: a rule with no resourceNames
   *     reaches every object of its resource, so there is no Role for no pools
   */
  static V1Role render(String namespace, Collection<String> poolNames) {
    TreeSet<String> pools = new TreeSet<>(poolNames);
    if (pools.isEmpty()) {
      throw new IllegalArgumentException(
          "the agents' Role of namespace "
              + namespace
              + " needs at least one pool: a rule without resourceNames would reach every object;"
              + " delete the Role when the namespace has no pool");
    }
    List<String> locks =
        pools.stream().map(pool -> AgentDeployment.lockName(namespace, pool)).toList();
    return new V1Role()
        .apiVersion(RBAC_GROUP + "/v1")
        .kind("Role")
        .metadata(new V1ObjectMeta().namespace(namespace).name(NAME).labels(labels()))
        .rules(
            List.of(
                // The agent lists and watches its pool with fieldSelector metadata.name=<pool>;
                // it patches it to report a declined address.
                new V1PolicyRule()
                    .apiGroups(List.of(NetworkApis.GROUP))
                    .resources(List.of(NetworkApis.IPPOOLS))
                    .resourceNames(List.copyOf(pools))
                    .verbs(List.of("get", "list", "watch", "patch")),
                // The agents' leader election: Elector reads, watches and renews by name, with
                // patch (never update).
                new V1PolicyRule()
                    .apiGroups(List.of("coordination.k8s.io"))
                    .resources(List.of("leases"))
                    .resourceNames(locks)
                    .verbs(List.of("get", "list", "watch", "patch")),
                new V1PolicyRule()
                    .apiGroups(List.of("coordination.k8s.io"))
                    .resources(List.of("leases"))
                    .verbs(List.of("create")),
                // "became leader" / "stopped leading" Events on the Lease.
                new V1PolicyRule()
                    .apiGroups(List.of(""))
                    .resources(List.of("events"))
                    .verbs(List.of("create"))));
  }

  /** The labels of the Role and of its RoleBinding. */
  static Map<String, String> labels() {
    return Map.of(
        AgentDeployment.LABEL_NAME,
        AgentDeployment.APP,
        AgentDeployment.LABEL_MANAGED_BY,
        AgentDeployment.MANAGER);
  }

  /** Whether {@code live} holds exactly the rules of {@code wanted}, in order. */
  static boolean sameRules(V1Role live, V1Role wanted) {
    return Objects.equals(text(live.getRules()), text(wanted.getRules()));
  }

  /** The rules as comparable text; absent and empty lists are the same to the API server. */
  private static List<String> text(List<V1PolicyRule> rules) {
    if (rules == null) {
      return List.of();
    }
    return rules.stream()
        .map(
            r ->
                "groups="
                    + orEmpty(r.getApiGroups())
                    + " resources="
                    + orEmpty(r.getResources())
                    + " names="
                    + orEmpty(r.getResourceNames())
                    + " urls="
                    + orEmpty(r.getNonResourceURLs())
                    + " verbs="
                    + orEmpty(r.getVerbs()))
        .toList();
  }

  private static List<String> orEmpty(List<String> list) {
    return list == null ? List.of() : list;
  }
}
