package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.util.Namespaces;
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
 * VirtualMachineNetworkConfigs and the agent Deployments, cluster-wide. Their events become work
 * keys handed to a {@link Sink}; only a leader's sink queues them.
 */
final class ClusterCache implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterCache.class);
  private static final String BY_NETWORK = "byNetwork";

  /** Where work keys ("namespace/name") go. */
  interface Sink {
    void pool(String key);

    void vmConfig(String key);
  }

  private final ExecutorService informerThreads;
  private final ScheduledExecutorService syncWatcher;
  private final SharedInformerFactory factory;
  private final SharedIndexInformer<IPPool> pools;
  private final SharedIndexInformer<VirtualMachineNetworkConfig> configs;
  private final SharedIndexInformer<V1Deployment> deployments;
  private final CompletableFuture<Void> synced = new CompletableFuture<>();

  ClusterCache(ApiClient client, Sink sink) {
    this.informerThreads = Executors.newCachedThreadPool(Threads.daemon("ippool-informer"));
    this.syncWatcher = Executors.newSingleThreadScheduledExecutor(Threads.daemon("ippool-sync"));
    this.factory = new SharedInformerFactory(client, informerThreads, false);
    this.pools = factory.sharedIndexInformerFor(NetworkApis.ipPools(client), IPPool.class, 0,
        Namespaces.NAMESPACE_ALL, ClusterCache::watchFailed);
    this.configs = factory.sharedIndexInformerFor(NetworkApis.vmNetworkConfigs(client),
        VirtualMachineNetworkConfig.class, 0, Namespaces.NAMESPACE_ALL,
        ClusterCache::watchFailed);
    AppsV1Api apps = new AppsV1Api(client);
    String selector = AgentDeployment.LABEL_NAME + "=" + AgentDeployment.APP;
    this.deployments = factory.sharedIndexInformerFor(params -> apps
        .listDeploymentForAllNamespaces().labelSelector(selector)
        .resourceVersion(params.resourceVersion).watch(params.watch)
        .timeoutSeconds(params.timeoutSeconds).buildCall(null),
        V1Deployment.class, V1DeploymentList.class, 0, ClusterCache::watchFailed);
    pools.addIndexers(Map.of(BY_NETWORK, p -> p.getSpec() == null
        || p.getSpec().getNetworkName() == null ? List.of() : List.of(p.getSpec().getNetworkName())));
    configs.addIndexers(Map.of(BY_NETWORK, ClusterCache::networksOf));

    pools.addEventHandler(handler(p -> {
      sink.pool(KubeObjects.key(p));
      if (p.getSpec() != null && p.getSpec().getNetworkName() != null) {
        for (VirtualMachineNetworkConfig c : configsOnNetwork(p.getSpec().getNetworkName())) {
          sink.vmConfig(KubeObjects.key(c));
        }
      }
    }));
    configs.addEventHandler(handler(c -> sink.vmConfig(KubeObjects.key(c))));
    deployments.addEventHandler(handler(d -> {
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
    syncWatcher.scheduleWithFixedDelay(() -> {
      if (hasSynced()) {
        synced.complete(null);
        syncWatcher.shutdown();
      }
    }, 0, 50, TimeUnit.MILLISECONDS);
  }

  boolean hasSynced() {
    return pools.hasSynced() && configs.hasSynced() && deployments.hasSynced();
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

  /** The pools whose spec.networkName is {@code network}, in any namespace. */
  List<IPPool> poolsOnNetwork(String network) {
    return pools.getIndexer().byIndex(BY_NETWORK, network);
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
  private static List<String> networksOf(VirtualMachineNetworkConfig c) {
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
    String what = error instanceof ApiException e
        ? "HTTP " + e.getCode() + (e.getCode() == 403
            ? " (forbidden: bind the ClusterRole ippool-controller of deploy/controller/rbac.yaml)"
            : "")
        : error.toString();
    log.warn("list/watch of {} failed with {}; the informer retries", type.getSimpleName(), what);
  }
}
