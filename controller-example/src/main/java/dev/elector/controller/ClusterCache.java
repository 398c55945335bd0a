package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1APIResourceList;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.util.Namespaces;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers, run in every replica whether it leads or not (a hot standby): IPPools,
 * VirtualMachineNetworkConfigs, the agent Deployments and, where KubeVirt is installed,
 * VirtualMachines, cluster-wide. Their events become work keys handed to a {@link Sink}; only a
 * leader's sink queues them.
 */
final class ClusterCache implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterCache.class);
  private static final String BY_NETWORK = "byNetwork";

  /** Where work keys ("namespace/name") go. */
  interface Sink {
    void pool(String key);

    void vmConfig(String key);

    /** A VirtualMachine's key (also sent for each config event: the config of that VM). */
    void vm(String key);
  }

  private final ExecutorService informerThreads;
  private final ScheduledExecutorService syncWatcher;
  private final SharedInformerFactory factory;
  private final SharedIndexInformer<IPPool> pools;
  private final SharedIndexInformer<VirtualMachineNetworkConfig> configs;
  private final SharedIndexInformer<V1Deployment> deployments;

  /** Null where the API server does not serve kubevirt.io/v1 virtualmachines. */
  private final SharedIndexInformer<VirtualMachine> vms;

  private final CompletableFuture<Void> synced = new CompletableFuture<>();

  ClusterCache(ApiClient client, Sink sink) {
    this.informerThreads = Executors.newCachedThreadPool(Threads.daemon("ippool-informer"));
    this.syncWatcher = Executors.newSingleThreadScheduledExecutor(Threads.daemon("ippool-sync"));
    this.factory = new SharedInformerFactory(client, informerThreads, false);
    this.pools =
        factory.sharedIndexInformerFor(
            NetworkApis.ipPools(client),
            IPPool.class,
            0,
            Namespaces.NAMESPACE_ALL,
            ClusterCache::watchFailed);
    this.configs =
        factory.sharedIndexInformerFor(
            NetworkApis.vmNetworkConfigs(client),
            VirtualMachineNetworkConfig.class,
            0,
            Namespaces.NAMESPACE_ALL,
            ClusterCache::watchFailed);
    AppsV1Api apps = new AppsV1Api(client);
    String selector = AgentDeployment.LABEL_NAME + "=" + AgentDeployment.APP;
    this.deployments =
        factory.sharedIndexInformerFor(
            params ->
                apps.listDeploymentForAllNamespaces()
                    .labelSelector(selector)
                    .resourceVersion(params.resourceVersion)
                    .watch(params.watch)
                    .timeoutSeconds(params.timeoutSeconds)
                    .buildCall(null),
            V1Deployment.class,
            V1DeploymentList.class,
            0,
            ClusterCache::watchFailed);
    pools.addIndexers(
        Map.of(
            BY_NETWORK,
            p ->
                p.getSpec() == null || p.getSpec().getNetworkName() == null
                    ? List.of()
                    : List.of(p.getSpec().getNetworkName())));
    configs.addIndexers(Map.of(BY_NETWORK, ClusterCache::networksOf));

    pools.addEventHandler(
        handler(
            p -> {
              sink.pool(KubeObjects.key(p));
              if (p.getSpec() != null && p.getSpec().getNetworkName() != null) {
                // another pool on the network: which one serves may have changed with this one
                for (IPPool other : poolsOnNetwork(p.getSpec().getNetworkName())) {
                  sink.pool(KubeObjects.key(other));
                }
                for (VirtualMachineNetworkConfig c :
                    configsOnNetwork(p.getSpec().getNetworkName())) {
                  sink.vmConfig(KubeObjects.key(c));
                }
              }
            }));
    this.vms =
        servesVirtualMachines(client)
            ? factory.sharedIndexInformerFor(
                new GenericKubernetesApi<>(
                    VirtualMachine.class,
                    VirtualMachineList.class,
                    VirtualMachine.GROUP,
                    VirtualMachine.VERSION,
                    VirtualMachine.PLURAL,
                    client),
                VirtualMachine.class,
                0,
                Namespaces.NAMESPACE_ALL,
                ClusterCache::watchFailed)
            : null;
    configs.addEventHandler(
        handler(
            c -> {
              sink.vmConfig(KubeObjects.key(c));
              // a pool whose deletion waits for its last user is looked at again
              for (String network : networksOf(c)) {
                for (IPPool p : poolsOnNetwork(network)) {
                  if (KubeObjects.deleting(p)) {
                    sink.pool(KubeObjects.key(p));
                  }
                }
              }
              if (vms != null) {
                sink.vm(KubeObjects.key(c));
              }
            }));
    if (vms != null) {
      vms.addEventHandler(handler(vm -> sink.vm(KubeObjects.key(vm))));
    }
    deployments.addEventHandler(
        handler(
            d -> {
              String served = AgentDeployment.poolOf(d);
              if (served != null) {
                sink.pool(served);
                return;
              }
              // an agent Deployment of an earlier version, in its pool's namespace
              List<V1OwnerReference> owners = d.getMetadata().getOwnerReferences();
              for (V1OwnerReference o : owners == null ? List.<V1OwnerReference>of() : owners) {
                if (IPPool.KIND.equals(o.getKind()) && Boolean.TRUE.equals(o.getController())) {
                  sink.pool(d.getMetadata().getNamespace() + "/" + o.getName());
                }
              }
            }));
  }

  /** Starts the informers; {@link #synced()} completes once all have listed. */
  void start() {
    factory.startAllRegisteredInformers();
    syncWatcher.scheduleWithFixedDelay(
        () -> {
          if (hasSynced()) {
            synced.complete(null);
            syncWatcher.shutdown();
          }
        },
        0,
        50,
        TimeUnit.MILLISECONDS);
  }

  boolean hasSynced() {
    return pools.hasSynced()
        && configs.hasSynced()
        && deployments.hasSynced()
        && (vms == null || vms.hasSynced());
  }

  /** Whether VirtualMachines are watched (KubeVirt's API was served at start). */
  boolean watchesVirtualMachines() {
    return vms != null;
  }

  VirtualMachine vm(String key) {
    return vms == null ? null : vms.getIndexer().getByKey(key);
  }

  List<VirtualMachine> allVms() {
    return vms == null ? List.of() : vms.getIndexer().list();
  }

  /**
   * Whether the API server serves KubeVirt's VirtualMachines, asked once at start: a cluster
   * without KubeVirt (404) gets no VirtualMachine informer, which would never sync; configs are
   * then made by hand. Any other failure counts as served, so the informer's own retries and
   * warnings show the problem.
   */
  private static boolean servesVirtualMachines(ApiClient client) {
    try {
      V1APIResourceList resources =
          new CustomObjectsApi(client)
              .getAPIResources(VirtualMachine.GROUP, VirtualMachine.VERSION)
              .execute();
      boolean served =
          resources.getResources().stream()
              .anyMatch(r -> VirtualMachine.PLURAL.equals(r.getName()));
      if (!served) {
        log.warn(
            "{} is served without {}; VirtualMachines are not watched",
            VirtualMachine.API_VERSION,
            VirtualMachine.PLURAL);
      }
      return served;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        log.warn(
            "the API server does not serve {} {} (KubeVirt is not installed):"
                + " VirtualMachines are not watched, and VirtualMachineNetworkConfigs are only made"
                + " by hand; install KubeVirt, then restart the controller",
            VirtualMachine.API_VERSION,
            VirtualMachine.PLURAL);
        return false;
      }
      log.warn(
          "cannot tell whether {} is served (HTTP {}); watching VirtualMachines anyway",
          VirtualMachine.API_VERSION,
          e.getCode());
      return true;
    }
  }

  /** Completes when every informer has synced. */
  CompletableFuture<Void> synced() {
    return synced;
  }

  IPPool pool(String key) {
    return pools.getIndexer().getByKey(key);
  }

  List<IPPool> allPools() {
    return pools.getIndexer().list();
  }

  /** The pools of {@code namespace}. */
  List<IPPool> poolsIn(String namespace) {
    return pools.getIndexer().byIndex(Caches.NAMESPACE_INDEX, namespace);
  }

  /** The pools whose spec.networkName is {@code network}, in any namespace. */
  List<IPPool> poolsOnNetwork(String network) {
    return pools.getIndexer().byIndex(BY_NETWORK, network);
  }

  /** The pool that serves {@code network} ({@link OnePoolPerNetwork}): none or one. */
  List<IPPool> servingPools(String network) {
    return OnePoolPerNetwork.servingOnly(poolsOnNetwork(network));
  }

  VirtualMachineNetworkConfig vmConfig(String key) {
    return configs.getIndexer().getByKey(key);
  }

  List<VirtualMachineNetworkConfig> allVmConfigs() {
    return configs.getIndexer().list();
  }

  List<VirtualMachineNetworkConfig> configsOnNetwork(String network) {
    return configs.getIndexer().byIndex(BY_NETWORK, network);
  }

  /** The pools that agent Deployments name ({@value AgentDeployment#POOL_ANNOTATION}). */
  List<String> poolsOfAgents() {
    return deployments.getIndexer().list().stream()
        .map(AgentDeployment::poolOf)
        .filter(java.util.Objects::nonNull)
        .distinct()
        .toList();
  }

  V1Deployment deployment(String namespace, String name) {
    return deployments.getIndexer().getByKey(namespace + "/" + name);
  }

  @Override
  public void close() {
    syncWatcher.shutdownNow();
    factory.stopAllRegisteredInformers(true);
    informerThreads.shutdownNow();
  }

  /** Networks a config's NICs are on now (spec) or were on (status), for release on change. */
  static List<String> networksOf(VirtualMachineNetworkConfig c) {
    Set<String> networks = new LinkedHashSet<>();
    if (c.getSpec() != null) {
      c.getSpec().getNetworkConfigs().forEach(n -> networks.add(n.getNetworkName()));
    }
    if (c.getStatus() != null) {
      c.getStatus().getNetworkConfigs().forEach(n -> networks.add(n.getNetworkName()));
    }
    networks.remove(null);
    return new ArrayList<>(networks);
  }

  private static <T extends KubernetesObject> ResourceEventHandler<T> handler(Consumer<T> each) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        each.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        each.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        each.accept(obj);
      }
    };
  }

  private static <T> void watchFailed(Class<T> type, Throwable error) {
    String what =
        error instanceof ApiException e
            ? "HTTP "
                + e.getCode()
                + (e.getCode() == 403
                    ? " (forbidden: bind the ClusterRole ippool-controller of deploy/controller/rbac.yaml)"
                    : "")
            : error.toString();
    log.warn("list/watch of {} failed with {}; the informer retries", type.getSimpleName(), what);
  }
}
