package dev.elector.demo;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies the shipped RBAC manifests as they are, so the demo's processes run with exactly the
 * permissions a cluster would give them: ServiceAccounts, ClusterRoles, ClusterRoleBindings, Roles
 * and RoleBindings are created, or replaced when they exist.
 */
final class Manifests {
  private Manifests() {}

  /** Applies every document of {@code file}; returns "Kind name" of each. */
  static List<String> apply(ApiClient admin, Path file) throws IOException, ApiException {
    return apply(admin, file, null);
  }

  /**
   * Applies every document of {@code file}, putting the namespaced ones that name no namespace into
   * {@code namespace} (as {@code kubectl apply -n} does) when it is not null.
   */
  static List<String> apply(ApiClient admin, Path file, String namespace)
      throws IOException, ApiException {
    CoreV1Api core = new CoreV1Api(admin);
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
    AdmissionregistrationV1Api admission = new AdmissionregistrationV1Api(admin);
    List<String> applied = new ArrayList<>();
    for (Object document : Yaml.loadAll(file.toFile())) {
      if (namespace != null
          && (document instanceof V1ServiceAccount
              || document instanceof V1Role
              || document instanceof V1RoleBinding)) {
        V1ObjectMeta meta = ((KubernetesObject) document).getMetadata();
        if (meta.getNamespace() == null) {
          meta.setNamespace(namespace);
        }
      }
      if (document instanceof V1ServiceAccount sa) {
        String ns = sa.getMetadata().getNamespace();
        ensureNamespace(core, ns);
        upsert(() -> core.createNamespacedServiceAccount(ns, sa).execute(), null);
        applied.add("ServiceAccount " + ns + "/" + sa.getMetadata().getName());
      } else if (document instanceof V1ClusterRole role) {
        upsert(
            () -> rbac.createClusterRole(role).execute(),
            () -> rbac.replaceClusterRole(role.getMetadata().getName(), role).execute());
        applied.add("ClusterRole " + role.getMetadata().getName());
      } else if (document instanceof V1ClusterRoleBinding binding) {
        upsert(
            () -> rbac.createClusterRoleBinding(binding).execute(),
            () ->
                rbac.replaceClusterRoleBinding(binding.getMetadata().getName(), binding).execute());
        applied.add("ClusterRoleBinding " + binding.getMetadata().getName());
      } else if (document instanceof V1Role role) {
        String ns = role.getMetadata().getNamespace();
        ensureNamespace(core, ns);
        upsert(
            () -> rbac.createNamespacedRole(ns, role).execute(),
            () -> rbac.replaceNamespacedRole(role.getMetadata().getName(), ns, role).execute());
        applied.add("Role " + ns + "/" + role.getMetadata().getName());
      } else if (document instanceof V1RoleBinding binding) {
        String ns = binding.getMetadata().getNamespace();
        upsert(
            () -> rbac.createNamespacedRoleBinding(ns, binding).execute(),
            () ->
                rbac.replaceNamespacedRoleBinding(binding.getMetadata().getName(), ns, binding)
                    .execute());
        applied.add("RoleBinding " + ns + "/" + binding.getMetadata().getName());
      } else if (document instanceof V1ValidatingWebhookConfiguration webhook) {
        // kept as they are if they exist: the controllers keep their caBundle up to date
        upsert(() -> admission.createValidatingWebhookConfiguration(webhook).execute(), null);
        applied.add("ValidatingWebhookConfiguration " + webhook.getMetadata().getName());
      } else if (document instanceof V1MutatingWebhookConfiguration webhook) {
        upsert(() -> admission.createMutatingWebhookConfiguration(webhook).execute(), null);
        applied.add("MutatingWebhookConfiguration " + webhook.getMetadata().getName());
      } else if (document != null) {
        throw new IOException(
            file
                + " holds a "
                + document.getClass().getSimpleName()
                + ", which the demo does not apply");
      }
    }
    return applied;
  }

  /** Creates the namespace unless it exists. */
  static void ensureNamespace(CoreV1Api core, String name) throws ApiException {
    upsert(
        () ->
            core.createNamespace(
                    new V1Namespace()
                        .apiVersion("v1")
                        .kind("Namespace")
                        .metadata(new V1ObjectMeta().name(name)))
                .execute(),
        null);
  }

  private interface Call {
    void run() throws ApiException;
  }

  private static void upsert(Call create, Call replace) throws ApiException {
    try {
      create.run();
    } catch (ApiException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      if (replace != null) {
        replace.run();
      }
    }
  }
}
