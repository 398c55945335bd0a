package dev.elector.testkit.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import java.util.Objects;

/**
 * A restricted identity: a ServiceAccount (authenticated by a TokenRequest token, as a pod would
 * be) or a static user of the local control plane. It has no permissions until {@link
 * KubeCluster#grant} binds a Role to it.
 *
 * @param username the name the API server knows it by, such as {@code
 *     system:serviceaccount:ns:name}
 * @param subject the RBAC subject that RoleBindings name
 * @param client a client authenticated as this identity only
 * @param token the bearer token the client sends, for processes that need a kubeconfig of their own
 *     ({@link KubeCluster#kubeconfigYaml(String)})
 */
public record KubeIdentity(String username, RbacV1Subject subject, ApiClient client, String token) {
  /** Checks that every component is given. */
  public KubeIdentity {
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(token, "token");
  }

  @Override
  public String toString() {
    return username;
  }
}
