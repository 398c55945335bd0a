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
 * Gives the agents of a pool namespace their identity and rights: the ServiceAccount {@value
 * #NAME}, the Role {@value #NAME} rendered by {@link AgentRole} for the namespace's pools, and the
 * RoleBinding {@value #NAME} that binds that Role to the ServiceAccount.
 *
 * <p>The Role is compared with the namespace's pools at every reconcile of a pool: read from the
 * API server first, then rendered from the cache, so that a write computed from a cache older than
 * another worker's write loses with 409 (the update carries the resourceVersion read) and is
 * retried. When the last pool of a namespace is deleted, the Role goes too. The ServiceAccount and
 * RoleBinding are checked once per namespace and term, and stay: they grant nothing without the
 * Role. A RoleBinding {@value #NAME} that binds anything else (a ClusterRole, say) is replaced,
 * since a binding's roleRef cannot change.
 *
 * <p>The API server lets the controller write this Role and bind it without {@code escalate} or
 * {@code bind} because the controller's ClusterRole holds every rule of it.
 */
final class AgentAccess {
  /** Name of the ServiceAccount, the Role and the RoleBinding. */
  static final String NAME = AgentDeployment.SERVICE_ACCOUNT;

  private final ClusterCache cache;
  private final LeaderWrites writes;
  private final EventLog events;
  private final Set<String> identified = ConcurrentHashMap.newKeySet();

  AgentAccess(ClusterCache cache, LeaderWrites writes, EventLog events) {
    this.cache = cache;
    this.writes = writes;
    this.events = events;
  }

  /**
   * Makes sure the ServiceAccount, the Role for the namespace's pools and its RoleBinding exist in
   * {@code namespace}, the Role created first: a RoleBinding is refused while its Role is missing.
   */
  void ensure(String namespace) throws ApiException {
    if (!identified.contains(namespace)
        && !writes.serviceAccountExists(namespace, NAME)
        && writes.createServiceAccount(
            new V1ServiceAccount()
                .apiVersion("v1")
                .kind("ServiceAccount")
                .metadata(
                    new V1ObjectMeta()
                        .namespace(namespace)
                        .name(NAME)
                        .labels(AgentRole.labels())))) {
      events.emit("SERVICE_ACCOUNT", "action", "created", "object", namespace + "/" + NAME);
    }
    syncRole(namespace);
    if (!identified.contains(namespace) && ensureBinding(namespace)) {
      identified.add(namespace);
    }
  }

  /**
   * Brings the Role in line with the pools of {@code namespace} that are not being deleted, and
   * deletes it when none is left. Called for a pool being deleted, before its finalizer goes.
   */
  void release(String namespace) throws ApiException {
    syncRole(namespace);
  }

  private void syncRole(String namespace) throws ApiException {
    V1Role live = writes.readRole(namespace, NAME);
    Set<String> pools = new TreeSet<>();
    for (IPPool pool : cache.poolsIn(namespace)) {
      if (!KubeObjects.deleting(pool)) {
        pools.add(pool.getMetadata().getName());
      }
    }
    String object = namespace + "/" + NAME;
    if (pools.isEmpty()) {
      if (live != null) {
        writes.deleteRole(live);
        events.emit("ROLE", "action", "deleted", "object", object);
      }
      return;
    }
    V1Role wanted = AgentRole.render(namespace, pools);
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
  private boolean ensureBinding(String namespace) throws ApiException {
    V1RoleBinding live = writes.readRoleBinding(namespace, NAME);
    if (live != null && bindsTheAgentRole(live, namespace)) {
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
                    new V1ObjectMeta().namespace(namespace).name(NAME).labels(AgentRole.labels()))
                .roleRef(new V1RoleRef().apiGroup(AgentRole.RBAC_GROUP).kind("Role").name(NAME))
                .subjects(List.of(subject(namespace))));
    if (!created) {
      return false; // one was made meanwhile: read it next time
    }
    events.emit(
        "ROLE_BINDING",
        "action",
        live == null ? "created" : "replaced",
        "object",
        namespace + "/" + NAME,
        "role",
        NAME);
    return true;
  }

  private static RbacV1Subject subject(String namespace) {
    return new RbacV1Subject().kind("ServiceAccount").name(NAME).namespace(namespace);
  }

  /** Whether the binding binds the Role {@value #NAME} to the agents' ServiceAccount, and only. */
  private static boolean bindsTheAgentRole(V1RoleBinding binding, String namespace) {
    V1RoleRef ref = binding.getRoleRef();
    List<RbacV1Subject> subjects = binding.getSubjects();
    return ref != null
        && "Role".equals(ref.getKind())
        && NAME.equals(ref.getName())
        && AgentRole.RBAC_GROUP.equals(ref.getApiGroup())
        && subjects != null
        && subjects.size() == 1
        && (subjects.get(0).getApiGroup() == null || subjects.get(0).getApiGroup().isEmpty())
        && "ServiceAccount".equals(subjects.get(0).getKind())
        && NAME.equals(subjects.get(0).getName())
        && namespace.equals(subjects.get(0).getNamespace());
  }
}
