package dev.elector.controller;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives the agents their identity and rights. In the agents' namespace: the ServiceAccount {@value
 * #NAME}, the Role {@value AgentRole#LEASES} naming every pool's Lease, and the RoleBinding {@value
 * AgentRole#LEASES}. In each pool namespace: the Role {@value #NAME} naming the namespace's pools,
 * and the RoleBinding {@value #NAME} binding it to the agents' ServiceAccount.
 *
 * <p>Each Role is compared with the pools at every reconcile of a pool: read from the API server
 * first, then rendered from the cache, so that a write computed from a cache older than another
 * worker's write loses with 409 (the update carries the resourceVersion read) and is retried. A
 * Role with no pool left is deleted. The ServiceAccount and RoleBindings are checked once per
 * namespace and term, and stay: they grant nothing without the Role. A RoleBinding that binds
 * anything else (a ClusterRole, or the ServiceAccount of another namespace, as earlier versions
 * bound the agents of the pool's namespace) is replaced, since a binding's roleRef cannot change.
 *
 * <p>The API server lets the controller write these Roles and bind them without {@code escalate} or
 * {@code bind} because the controller's own rules hold every rule of them.
 */
final class AgentAccess {
  /** Name of the ServiceAccount, and of the pool namespaces' Role and RoleBinding. */
  static final String NAME = AgentDeployment.SERVICE_ACCOUNT;

  private final ClusterCache cache;
  private final LeaderWrites writes;
  private final EventLog events;
  private final String agentNamespace;
  private final Set<String> identified = ConcurrentHashMap.newKeySet();

  /**
   * @param agentNamespace where the agents run; null when there are none (then only the pool
   *     namespaces' Roles are released)
   */
  AgentAccess(ClusterCache cache, LeaderWrites writes, EventLog events, String agentNamespace) {
    this.cache = cache;
    this.writes = writes;
    this.events = events;
    this.agentNamespace = agentNamespace;
  }

  /**
   * Makes sure the agents' ServiceAccount, their Lease Role and its RoleBinding exist in the
   * agents' namespace, and the Role for the pools of {@code namespace} and its RoleBinding exist
   * there, each Role created first: a RoleBinding is refused while its Role is missing.
   */
  void ensure(String namespace) throws ApiException {
    if (agentNamespace == null) {
      return; // no agents (--no-agent)
    }
    String accountKey = "serviceaccount";
    if (!identified.contains(accountKey)) {
      if (!writes.serviceAccountExists(agentNamespace, NAME)
          && writes.createServiceAccount(
              new V1ServiceAccount()
                  .apiVersion("v1")
                  .kind("ServiceAccount")
                  .metadata(
                      new V1ObjectMeta()
                          .namespace(agentNamespace)
                          .name(NAME)
                          .labels(AgentRole.labels())))) {
        events.emit("SERVICE_ACCOUNT", "action", "created", "object", agentNamespace + "/" + NAME);
      }
      identified.add(accountKey);
    }
    syncLeaseRole();
    String leasesKey = "leases";
    if (!identified.contains(leasesKey) && ensureBinding(agentNamespace, AgentRole.LEASES)) {
      identified.add(leasesKey);
    }
    syncRole(namespace);
    if (!identified.contains(namespace) && ensureBinding(namespace, NAME)) {
      identified.add(namespace);
    }
  }

  /**
   * Brings the Roles in line with the pools that are not being deleted, and deletes a Role with
   * none left. Called for a pool of {@code namespace} being deleted, before its finalizer goes.
   */
  void release(String namespace) throws ApiException {
    syncRole(namespace);
    if (agentNamespace != null) {
      syncLeaseRole();
    }
  }

  private void syncRole(String namespace) throws ApiException {
    Set<String> pools = new TreeSet<>();
    for (IPPool pool : cache.poolsIn(namespace)) {
      if (!KubeObjects.deleting(pool)) {
        pools.add(pool.getMetadata().getName());
      }
    }
    sync(namespace, NAME, pools, () -> AgentRole.render(namespace, pools));
  }

  private void syncLeaseRole() throws ApiException {
    Set<String> pools = new TreeSet<>();
    for (IPPool pool : cache.allPools()) {
      if (!KubeObjects.deleting(pool)) {
        pools.add(pool.ref());
      }
    }
    sync(
        agentNamespace,
        AgentRole.LEASES,
        pools,
        () -> AgentRole.renderLeases(agentNamespace, pools));
  }

  private void sync(
      String namespace, String name, Set<String> pools, java.util.function.Supplier<V1Role> render)
      throws ApiException {
    V1Role live = writes.readRole(namespace, name);
    String object = namespace + "/" + name;
    if (pools.isEmpty()) {
      if (live != null) {
        writes.deleteRole(live);
        events.emit("ROLE", "action", "deleted", "object", object);
      }
      return;
    }
    V1Role wanted = render.get();
    String names = String.join(",", pools);
    if (live == null) {
      writes.createRole(wanted);
      events.emit("ROLE", "action", "created", "object", object, "pools", names);
    } else if (!AgentRole.sameRules(live, wanted)) {
      V1Role update = KubeObjects.copy(live, V1Role.class);
      update.getMetadata().labels(wanted.getMetadata().getLabels());
      update.rules(wanted.getRules());
      writes.replaceRole(update);
      events.emit("ROLE", "action", "updated", "object", object, "pools", names);
    }
  }

  /** Whether the RoleBinding was found right or made so; false: look again next time. */
  private boolean ensureBinding(String namespace, String name) throws ApiException {
    V1RoleBinding live = writes.readRoleBinding(namespace, name);
    if (live != null && bindsTheAgentRole(live, name)) {
      return true;
    }
    if (live != null) {
      writes.deleteRoleBinding(live);
    }
    boolean created =
        writes.createRoleBinding(
            new V1RoleBinding()
                .apiVersion(AgentRole.RBAC_GROUP + "/v1")
                .kind("RoleBinding")
                .metadata(
                    new V1ObjectMeta().namespace(namespace).name(name).labels(AgentRole.labels()))
                .roleRef(new V1RoleRef().apiGroup(AgentRole.RBAC_GROUP).kind("Role").name(name))
                .subjects(List.of(subject())));
    if (!created) {
      return false; // one was made meanwhile: read it next time
    }
    events.emit(
        "ROLE_BINDING",
        "action",
        live == null ? "created" : "replaced",
        "object",
        namespace + "/" + name,
        "role",
        name);
    return true;
  }

  private RbacV1Subject subject() {
    return new RbacV1Subject().kind("ServiceAccount").name(NAME).namespace(agentNamespace);
  }

  /**
   * Whether the binding binds the Role {@code role} to the agents' ServiceAccount (in the agents'
   * namespace), and only.
   */
  private boolean bindsTheAgentRole(V1RoleBinding binding, String role) {
    V1RoleRef ref = binding.getRoleRef();
    List<RbacV1Subject> subjects = binding.getSubjects();
    return ref != null
        && "Role".equals(ref.getKind())
        && role.equals(ref.getName())
        && AgentRole.RBAC_GROUP.equals(ref.getApiGroup())
        && subjects != null
        && subjects.size() == 1
        && (subjects.get(0).getApiGroup() == null || subjects.get(0).getApiGroup().isEmpty())
        && "ServiceAccount".equals(subjects.get(0).getKind())
        && NAME.equals(subjects.get(0).getName())
        && agentNamespace.equals(subjects.get(0).getNamespace());
  }
}
