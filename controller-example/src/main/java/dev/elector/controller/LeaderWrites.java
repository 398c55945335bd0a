package dev.elector.controller;

import dev.elector.Term;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolList;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfigList;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.DeleteOptions;
import java.util.List;
import java.util.Optional;

/**
 * Every call the controller makes to change the cluster, for one leadership term. Each write first
 * checks {@link Term#isActive()} and throws {@link TermEndedException} once the term has ended, so
 * after a step-down only a write already on the wire can land late; and every update carries the
 * resourceVersion it was computed from, so such a late write cannot clobber a newer leader's (the
 * server answers 409).
 */
final class LeaderWrites {
  private final Term term;
  private final GenericKubernetesApi<IPPool, IPPoolList> pools;
  private final GenericKubernetesApi<VirtualMachineNetworkConfig, VirtualMachineNetworkConfigList>
      configs;
  private final ApiClient client;
  private final AppsV1Api apps;
  private final CoreV1Api core;
  private final RbacAuthorizationV1Api rbac;
  private final AdmissionregistrationV1Api admission;
  private final java.util.function.Consumer<String> poolWritten;

  LeaderWrites(Term term, ApiClient client) {
    this(term, client, pool -> {});
  }

  /**
   * @param poolWritten told the key of each pool written, after the write (for tests)
   */
  LeaderWrites(Term term, ApiClient client, java.util.function.Consumer<String> poolWritten) {
    this.term = term;
    this.poolWritten = poolWritten;
    this.client = client;
    this.pools = NetworkApis.ipPools(client);
    this.configs = NetworkApis.vmNetworkConfigs(client);
    this.apps = new AppsV1Api(client);
    this.core = new CoreV1Api(client);
    this.rbac = new RbacAuthorizationV1Api(client);
    this.admission = new AdmissionregistrationV1Api(client);
  }

  /** Whether the term is still active. */
  boolean active() {
    return term.isActive();
  }

  private void check(String what) {
    if (!term.isActive()) {
      throw new TermEndedException(what);
    }
  }

  /** A fresh read of a pool, bypassing the cache (after a conflict). */
  IPPool readPool(String namespace, String name) throws ApiException {
    return pools.get(namespace, name).throwsApiException().getObject();
  }

  /** PUT of a pool's main resource (its finalizers), conditional on its resourceVersion. */
  IPPool updatePool(IPPool pool) throws ApiException {
    check("update of IPPool " + pool.ref());
    IPPool updated = pools.update(pool).throwsApiException().getObject();
    poolWritten.accept(pool.ref());
    return updated;
  }

  /** PUT of a pool's status, conditional on its resourceVersion. */
  IPPool replacePoolStatus(IPPool pool) throws ApiException {
    check("status of IPPool " + pool.ref());
    IPPool updated = NetworkApis.replaceStatus(client, pool);
    poolWritten.accept(pool.ref());
    return updated;
  }

  VirtualMachineNetworkConfig updateVmConfig(VirtualMachineNetworkConfig config)
      throws ApiException {
    check("update of VirtualMachineNetworkConfig " + KubeObjects.key(config));
    return configs.update(config).throwsApiException().getObject();
  }

  /** Creates a config; 409 when one of its name exists. */
  VirtualMachineNetworkConfig createVmConfig(VirtualMachineNetworkConfig config)
      throws ApiException {
    check("creation of VirtualMachineNetworkConfig " + KubeObjects.key(config));
    return configs.create(config).throwsApiException().getObject();
  }

  /**
   * Deletes a config, on the precondition that it is the one read (same uid); an absent one counts
   * as deleted.
   */
  void deleteVmConfig(VirtualMachineNetworkConfig config) throws ApiException {
    check("deletion of VirtualMachineNetworkConfig " + KubeObjects.key(config));
    DeleteOptions options = new DeleteOptions();
    options.setPreconditions(new V1Preconditions().uid(config.getMetadata().getUid()));
    KubernetesApiResponse<VirtualMachineNetworkConfig> response =
        configs.delete(
            config.getMetadata().getNamespace(), config.getMetadata().getName(), options);
    if (response.getHttpStatusCode() != 404) {
      response.throwsApiException();
    }
  }

  VirtualMachineNetworkConfig replaceVmConfigStatus(VirtualMachineNetworkConfig config)
      throws ApiException {
    check("status of VirtualMachineNetworkConfig " + KubeObjects.key(config));
    return NetworkApis.replaceStatus(client, config);
  }

  V1Deployment createDeployment(V1Deployment deployment) throws ApiException {
    check("creation of Deployment " + KubeObjects.key(deployment));
    return apps.createNamespacedDeployment(deployment.getMetadata().getNamespace(), deployment)
        .execute();
  }

  /** PUT of a Deployment, conditional on the resourceVersion it carries. */
  V1Deployment replaceDeployment(V1Deployment deployment) throws ApiException {
    check("update of Deployment " + KubeObjects.key(deployment));
    return apps.replaceNamespacedDeployment(
            deployment.getMetadata().getName(), deployment.getMetadata().getNamespace(), deployment)
        .execute();
  }

  /** Deletes a Deployment; an absent one counts as deleted. */
  void deleteDeployment(String namespace, String name) throws ApiException {
    check("deletion of Deployment " + namespace + "/" + name);
    try {
      apps.deleteNamespacedDeployment(name, namespace).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  /**
   * Deletes a Pod; true when it was there. Used only for upstream's agent pod of a pool whose own
   * agent serves.
   */
  boolean deletePod(String namespace, String name) throws ApiException {
    check("deletion of Pod " + namespace + "/" + name);
    try {
      core.deleteNamespacedPod(name, namespace).execute();
      return true;
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      return false;
    }
  }

  /** Whether the ServiceAccount exists. */
  boolean serviceAccountExists(String namespace, String name) throws ApiException {
    return exists(() -> core.readNamespacedServiceAccount(name, namespace).execute());
  }

  /** The RoleBinding, or null when there is none. */
  V1RoleBinding readRoleBinding(String namespace, String name) throws ApiException {
    return readOrNull(() -> rbac.readNamespacedRoleBinding(name, namespace).execute());
  }

  /** The Role, or null when there is none. */
  V1Role readRole(String namespace, String name) throws ApiException {
    return readOrNull(() -> rbac.readNamespacedRole(name, namespace).execute());
  }

  /** Creates the Role; 409 when one of its name exists. */
  V1Role createRole(V1Role role) throws ApiException {
    String namespace = role.getMetadata().getNamespace();
    check("creation of Role " + namespace + "/" + role.getMetadata().getName());
    return rbac.createNamespacedRole(namespace, role).execute();
  }

  /** PUT of a Role, conditional on the resourceVersion it carries. */
  V1Role replaceRole(V1Role role) throws ApiException {
    String namespace = role.getMetadata().getNamespace();
    String name = role.getMetadata().getName();
    check("update of Role " + namespace + "/" + name);
    return rbac.replaceNamespacedRole(name, namespace, role).execute();
  }

  /**
   * Deletes a Role, on the precondition that it is the one read (same resourceVersion); an absent
   * one counts as deleted.
   */
  void deleteRole(V1Role role) throws ApiException {
    String namespace = role.getMetadata().getNamespace();
    String name = role.getMetadata().getName();
    check("deletion of Role " + namespace + "/" + name);
    ignoreNotFound(
        () ->
            rbac.deleteNamespacedRole(name, namespace)
                .body(
                    new V1DeleteOptions()
                        .preconditions(
                            new V1Preconditions()
                                .resourceVersion(role.getMetadata().getResourceVersion())))
                .execute());
  }

  /**
   * Deletes a RoleBinding, on the precondition that it is the one read (same uid); an absent one
   * counts as deleted.
   */
  void deleteRoleBinding(V1RoleBinding binding) throws ApiException {
    String namespace = binding.getMetadata().getNamespace();
    String name = binding.getMetadata().getName();
    check("deletion of RoleBinding " + namespace + "/" + name);
    ignoreNotFound(
        () ->
            rbac.deleteNamespacedRoleBinding(name, namespace)
                .body(
                    new V1DeleteOptions()
                        .preconditions(new V1Preconditions().uid(binding.getMetadata().getUid())))
                .execute());
  }

  /**
   * Creates the ServiceAccount; one that exists already counts as created.
   *
   * @return false when one existed already
   */
  boolean createServiceAccount(V1ServiceAccount account) throws ApiException {
    String namespace = account.getMetadata().getNamespace();
    check("creation of ServiceAccount " + namespace + "/" + account.getMetadata().getName());
    return ignoreConflict(() -> core.createNamespacedServiceAccount(namespace, account).execute());
  }

  /**
   * Creates the RoleBinding; one that exists already counts as created.
   *
   * @return false when one existed already
   */
  boolean createRoleBinding(V1RoleBinding binding) throws ApiException {
    String namespace = binding.getMetadata().getNamespace();
    check("creation of RoleBinding " + namespace + "/" + binding.getMetadata().getName());
    return ignoreConflict(() -> rbac.createNamespacedRoleBinding(namespace, binding).execute());
  }

  /** Whether the Service exists. */
  boolean serviceExists(String namespace, String name) throws ApiException {
    return exists(() -> core.readNamespacedService(name, namespace).execute());
  }

  /** A webhook configuration's metadata and the client configs of its webhooks. */
  record WebhookConfiguration(
      V1ObjectMeta metadata, List<AdmissionregistrationV1WebhookClientConfig> clientConfigs) {}

  /** The webhook configuration of that kind and name, or null when there is none. */
  WebhookConfiguration readWebhookConfiguration(UpstreamLeftovers.WebhookKind kind, String name)
      throws ApiException {
    return switch (kind) {
      case VALIDATING -> {
        V1ValidatingWebhookConfiguration found =
            readOrNull(() -> admission.readValidatingWebhookConfiguration(name).execute());
        yield found == null
            ? null
            : new WebhookConfiguration(
                found.getMetadata(),
                Optional.ofNullable(found.getWebhooks()).orElse(List.of()).stream()
                    .map(V1ValidatingWebhook::getClientConfig)
                    .toList());
      }
      case MUTATING -> {
        V1MutatingWebhookConfiguration found =
            readOrNull(() -> admission.readMutatingWebhookConfiguration(name).execute());
        yield found == null
            ? null
            : new WebhookConfiguration(
                found.getMetadata(),
                Optional.ofNullable(found.getWebhooks()).orElse(List.of()).stream()
                    .map(V1MutatingWebhook::getClientConfig)
                    .toList());
      }
    };
  }

  /**
   * Deletes a webhook configuration, on the precondition that it is the one read (same uid and
   * resourceVersion: 409 otherwise).
   *
   * @return false when it was gone already
   */
  boolean deleteWebhookConfiguration(UpstreamLeftovers.WebhookKind kind, V1ObjectMeta read)
      throws ApiException {
    String name = read.getName();
    check("deletion of " + kind.kind() + " " + name);
    V1DeleteOptions options = new V1DeleteOptions().preconditions(sameObject(read));
    return exists(
        () ->
            kind == UpstreamLeftovers.WebhookKind.VALIDATING
                ? admission.deleteValidatingWebhookConfiguration(name).body(options).execute()
                : admission.deleteMutatingWebhookConfiguration(name).body(options).execute());
  }

  /** The Secret, or null when there is none. */
  V1Secret readSecret(String namespace, String name) throws ApiException {
    return readOrNull(() -> core.readNamespacedSecret(name, namespace).execute());
  }

  /**
   * Deletes a Secret, on the precondition that it is the one read (same uid and resourceVersion:
   * 409 otherwise).
   *
   * @return false when it was gone already
   */
  boolean deleteSecret(V1ObjectMeta read) throws ApiException {
    String namespace = read.getNamespace();
    String name = read.getName();
    check("deletion of Secret " + namespace + "/" + name);
    return exists(
        () ->
            core.deleteNamespacedSecret(name, namespace)
                .body(new V1DeleteOptions().preconditions(sameObject(read)))
                .execute());
  }

  private static V1Preconditions sameObject(V1ObjectMeta read) {
    return new V1Preconditions().uid(read.getUid()).resourceVersion(read.getResourceVersion());
  }

  private interface Call {
    Object run() throws ApiException;
  }

  private interface TypedCall<T> {
    T run() throws ApiException;
  }

  private static <T> T readOrNull(TypedCall<T> read) throws ApiException {
    try {
      return read.run();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static void ignoreNotFound(Call delete) throws ApiException {
    try {
      delete.run();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static boolean exists(Call read) throws ApiException {
    try {
      read.run();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static boolean ignoreConflict(Call create) throws ApiException {
    try {
      create.run();
      return true;
    } catch (ApiException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return false;
    }
  }
}
