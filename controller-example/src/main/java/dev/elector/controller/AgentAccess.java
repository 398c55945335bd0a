package dev.elector.controller;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives agents in a pool namespace their identity: the ServiceAccount {@value #NAME} and the
 * RoleBinding {@value #NAME} that binds the ClusterRole {@value #NAME} to it. Each namespace is
 * checked once per term. The controller may create the binding without holding the agent's
 * permissions itself because its ClusterRole grants {@code bind} on that ClusterRole alone. Both
 * objects are left in place when pools are deleted: other pools of the namespace may use them.
 */
final class AgentAccess {
  /** Name of the ServiceAccount, the RoleBinding and the ClusterRole. */
  static final String NAME = AgentDeployment.SERVICE_ACCOUNT;

  private final LeaderWrites writes;
  private final EventLog events;
  private final Set<String> ensured = ConcurrentHashMap.newKeySet();

  AgentAccess(LeaderWrites writes, EventLog events) {
    this.writes = writes;
    this.events = events;
  }

  /** Makes sure the ServiceAccount and RoleBinding exist in {@code namespace}. */
  void ensure(String namespace) throws ApiException {
    if (ensured.contains(namespace)) {
      return;
    }
    Map<String, String> labels =
        Map.of(
            AgentDeployment.LABEL_NAME,
            AgentDeployment.APP,
            AgentDeployment.LABEL_MANAGED_BY,
            AgentDeployment.MANAGER);
    if (!writes.serviceAccountExists(namespace, NAME)) {
      writes.createServiceAccount(
          new V1ServiceAccount()
              .apiVersion("v1")
              .kind("ServiceAccount")
              .metadata(new V1ObjectMeta().namespace(namespace).name(NAME).labels(labels)));
      events.emit("SERVICE_ACCOUNT", "action", "created", "object", namespace + "/" + NAME);
    }
    if (!writes.roleBindingExists(namespace, NAME)) {
      writes.createRoleBinding(
          new V1RoleBinding()
              .apiVersion("rbac.authorization.k8s.io/v1")
              .kind("RoleBinding")
              .metadata(new V1ObjectMeta().namespace(namespace).name(NAME).labels(labels))
              .roleRef(
                  new V1RoleRef()
                      .apiGroup("rbac.authorization.k8s.io")
                      .kind("ClusterRole")
                      .name(NAME))
              .subjects(
                  List.of(
                      new RbacV1Subject().kind("ServiceAccount").name(NAME).namespace(namespace))));
      events.emit(
          "ROLE_BINDING",
          "action",
          "created",
          "object",
          namespace + "/" + NAME,
          "clusterRole",
          NAME);
    }
    ensured.add(namespace);
  }
}
