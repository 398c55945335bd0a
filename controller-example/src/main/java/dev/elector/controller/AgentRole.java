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
 * Renders the two Roles of the DHCP agents. Every rule that reaches existing objects names them, so
 * an agent cannot read another pool or take another application's Lease; only {@code create} on
 * leases and events is left unnamed, because Kubernetes cannot restrict create by name.
 *
 * <ul>
 *   <li>{@value #NAME}, in each pool namespace: the namespace's IPPools, which the agents read and
 *       patch, and their status, where the leader writes its pod.
 *   <li>{@value #LEASES}, in the agents' namespace: the agents' Leases ({@link
 *       AgentDeployment#lockName}) of every pool, and the Events their elections record.
 * </ul>
 *
 * <p>The agents share one ServiceAccount, so a Role per pool would grant them the same union; fixed
 * names let the controller's own rules on Roles name them too (deploy/controller/rbac.yaml).
 */
final class AgentRole {
  /** Name of the pool namespaces' Role, and of the RoleBinding that binds it to the agents. */
  static final String NAME = AgentDeployment.SERVICE_ACCOUNT;

  /** Name of the Role of the agents' Leases, and of its RoleBinding, in the agents' namespace. */
  static final String LEASES = AgentDeployment.SERVICE_ACCOUNT + "-leases";

  static final String RBAC_GROUP = "rbac.authorization.k8s.io";

  private AgentRole() {}

  /**
   * The Role of pool namespace {@code namespace}, for its pools {@code poolNames}.
   *
   * @throws IllegalArgumentException when {@code poolNames} is empty: a rule with no resourceNames
   *     reaches every object of its resource, so there is no Role for no pools
   */
  static V1Role render(String namespace, Collection<String> poolNames) {
    TreeSet<String> pools = new TreeSet<>(poolNames);
    requireSome(pools, "the agents' Role of namespace " + namespace);
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
                // The leader writes status.agentPodRef when its term starts.
                new V1PolicyRule()
                    .apiGroups(List.of(NetworkApis.GROUP))
                    .resources(List.of(NetworkApis.IPPOOLS + "/status"))
                    .resourceNames(List.copyOf(pools))
                    .verbs(List.of("patch"))));
  }

  /**
   * The Role of the agents' Leases in {@code agentNamespace}, for the pools {@code poolRefs}
   * ("namespace/name").
   *
   * @throws IllegalArgumentException when {@code poolRefs} is empty (as for {@link #render})
   */
  static V1Role renderLeases(String agentNamespace, Collection<String> poolRefs) {
    TreeSet<String> locks = new TreeSet<>();
    for (String ref : poolRefs) {
      int slash = ref.indexOf('/');
      locks.add(AgentDeployment.lockName(ref.substring(0, slash), ref.substring(slash + 1)));
    }
    requireSome(locks, "the agents' Lease Role in namespace " + agentNamespace);
    return new V1Role()
        .apiVersion(RBAC_GROUP + "/v1")
        .kind("Role")
        .metadata(new V1ObjectMeta().namespace(agentNamespace).name(LEASES).labels(labels()))
        .rules(
            List.of(
                // The agents' leader election: Elector reads, watches and renews by name, with
                // patch (never update).
                new V1PolicyRule()
                    .apiGroups(List.of("coordination.k8s.io"))
                    .resources(List.of("leases"))
                    .resourceNames(List.copyOf(locks))
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

  private static void requireSome(Collection<String> names, String what) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException(
          what
              + " needs at least one pool: a rule without resourceNames would reach every object;"
              + " delete the Role when there is no pool");
    }
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
