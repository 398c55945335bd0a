package dev.elector.ippool;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/** Typed access to the {@code network.harvesterhci.io/v1alpha1} resources. */
public final class NetworkApis {
  /** The API group. */
  public static final String GROUP = "network.harvesterhci.io";

  /** The served version. */
  public static final String VERSION = "v1alpha1";

  /** group/version, as in apiVersion. */
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** Plural resource name of IPPool. */
  public static final String IPPOOLS = "ippools";

  /** Plural resource name of VirtualMachineNetworkConfig. */
  public static final String VM_NETWORK_CONFIGS = "virtualmachinenetworkconfigs";

  private NetworkApis() {}

  /**
   * Replaces the status of a pool (PUT on the status subresource) with optimistic concurrency: the
   * pool's resourceVersion must be current, or the server answers 409. Use this rather than {@code
   * GenericKubernetesApi.updateStatus}, whose patch client-java 25.0.0 sends in a media type the
   * API server refuses (415).
   *
   * @throws ApiException 409 on a stale resourceVersion, 404 when the pool is gone
   */
  public static IPPool replaceStatus(ApiClient client, IPPool pool) throws ApiException {
    return replaceStatus(client, pool, IPPOOLS, IPPool.class);
  }

  /** As {@link #replaceStatus(ApiClient, IPPool)}, for a VirtualMachineNetworkConfig. */
  public static VirtualMachineNetworkConfig replaceStatus(
      ApiClient client, VirtualMachineNetworkConfig config) throws ApiException {
    return replaceStatus(client, config, VM_NETWORK_CONFIGS, VirtualMachineNetworkConfig.class);
  }

  private static <T extends KubernetesObject> T replaceStatus(
      ApiClient client, T object, String plural, Class<T> type) throws ApiException {
    Object updated =
        new CustomObjectsApi(client)
            .replaceNamespacedCustomObjectStatus(
                GROUP,
                VERSION,
                object.getMetadata().getNamespace(),
                plural,
                object.getMetadata().getName(),
                object)
            .execute();
    return JSON.deserialize(JSON.serialize(updated), type);
  }

  /** CRUD, patches and watches of IPPools through {@code client}. */
  public static GenericKubernetesApi<IPPool, IPPoolList> ipPools(ApiClient client) {
    return new GenericKubernetesApi<>(
        IPPool.class, IPPoolList.class, GROUP, VERSION, IPPOOLS, client);
  }

  /** CRUD, status updates, patches and watches of VirtualMachineNetworkConfigs. */
  public static GenericKubernetesApi<VirtualMachineNetworkConfig, VirtualMachineNetworkConfigList>
      vmNetworkConfigs(ApiClient client) {
    return new GenericKubernetesApi<>(
        VirtualMachineNetworkConfig.class,
        VirtualMachineNetworkConfigList.class,
        GROUP,
        VERSION,
        VM_NETWORK_CONFIGS,
        client);
  }
}
