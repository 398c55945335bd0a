package dev.elector.controller;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolList;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.NetworkCrds;
import dev.elector.ippool.Pool;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfigList;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.util.Yaml;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs controllers against a real API server under an identity that holds exactly what
 * deploy/controller/rbac.yaml grants: its ClusterRoles (bound cluster-wide) and its Role (bound in
 * the controller's own namespace, where the Lease lives). Timings are scaled down (lease 3 s, renew
 * 2 s, retry 0.5 s). Records every controller's events.
 */
final class ControllerHarness implements AutoCloseable {
  static final Path RBAC = Path.of("..", "deploy", "controller", "rbac.yaml");
  static final Duration LEASE = Duration.ofSeconds(3);
  static final Duration RENEW = Duration.ofSeconds(2);
  static final Duration RETRY = Duration.ofMillis(500);
  static final String IMAGE = "registry.test/dhcp-agent:it";

  final KubeCluster cluster;
  final ApiClient admin;
  final KubeNamespace home;
  final KubeIdentity identity;
  final MovableClock clock = new MovableClock();
  final GenericKubernetesApi<IPPool, IPPoolList> pools;
  final GenericKubernetesApi<VirtualMachineNetworkConfig, VirtualMachineNetworkConfigList> configs;
  final AppsV1Api apps;
  private final Map<String, IPPoolController> controllers = new ConcurrentHashMap<>();
  private final Map<String, List<ProcessEvent>> events = new ConcurrentHashMap<>();

  private ControllerHarness(KubeCluster cluster, KubeNamespace home, KubeIdentity identity) {
    this.cluster = cluster;
    this.admin = cluster.admin();
    this.home = home;
    this.identity = identity;
    this.pools = NetworkApis.ipPools(admin);
    this.configs = NetworkApis.vmNetworkConfigs(admin);
    this.apps = new AppsV1Api(admin);
  }

  /** Installs the CRDs and ClusterRoles, and a controller identity bound to exactly them. */
  static ControllerHarness create(KubeCluster cluster, String prefix) throws Exception {
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(30));
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.admin());
    for (V1ClusterRole role : clusterRoles()) {
      try {
        rbac.createClusterRole(role).execute();
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        V1ClusterRole existing = rbac.readClusterRole(role.getMetadata().getName()).execute();
        role.getMetadata().resourceVersion(existing.getMetadata().getResourceVersion());
        rbac.replaceClusterRole(role.getMetadata().getName(), role).execute();
      }
    }
    KubeNamespace home = cluster.createNamespace(prefix);
    KubeIdentity identity = cluster.newIdentity(home, "ippool-controller");
    cluster.grant(identity, home, KubeCluster.roleRules(RBAC));
    rbac.createClusterRoleBinding(
            new V1ClusterRoleBinding()
                .apiVersion("rbac.authorization.k8s.io/v1")
                .kind("ClusterRoleBinding")
                .metadata(new V1ObjectMeta().name("ippool-controller-" + home.name()))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name("ippool-controller"))
                .subjects(List.of(identity.subject())))
        .execute();
    GenericKubernetesApi<IPPool, IPPoolList> asController = NetworkApis.ipPools(identity.client());
    Await.until(
        "the shipped RBAC takes effect",
        Duration.ofSeconds(15),
        () -> asController.list().isSuccess());
    return new ControllerHarness(cluster, home, identity);
  }

  /** The ClusterRoles of the shipped manifest. */
  static List<V1ClusterRole> clusterRoles() throws IOException {
    List<V1ClusterRole> roles = new ArrayList<>();
    for (Object document : Yaml.loadAll(RBAC.toFile())) {
      if (document instanceof V1ClusterRole role) {
        roles.add(role);
      }
    }
    return roles;
  }

  /** Where started controllers look for upstream's agent pods; null for nowhere. */
  String upstreamAgentNamespace;

  /** Starts a controller named {@code name} (its identity) under the restricted identity. */
  IPPoolController start(String name, int workers) {
    return start(name, workers, b -> {});
  }

  /** {@link #start(String, int)}, with more settings made by {@code more}. */
  IPPoolController start(
      String name, int workers, java.util.function.Consumer<ControllerConfig.Builder> more) {
    return start(name, workers, more, identity.client());
  }

  /**
   * A client of the controller identity whose every new request fails with an IOException while
   * {@code cut} is true: a replica cut off from the API server, which can neither renew nor release
   * (as if killed, seen from the others), while its calls already open go on.
   */
  ApiClient severableClient(java.util.concurrent.atomic.AtomicBoolean cut) {
    ApiClient shared = identity.client();
    String bearer = "Bearer " + identity.token();
    ApiClient client =
        new ApiClient(
            shared
                .getHttpClient()
                .newBuilder()
                .addInterceptor(
                    chain -> {
                      if (cut.get()) {
                        throw new IOException("cut off from the API server (test)");
                      }
                      return chain.proceed(
                          chain.request().newBuilder().header("Authorization", bearer).build());
                    })
                .build());
    client.setBasePath(shared.getBasePath());
    return client;
  }

  /** {@link #start(String, int)} with more settings and its own client. */
  IPPoolController start(
      String name,
      int workers,
      java.util.function.Consumer<ControllerConfig.Builder> more,
      ApiClient client) {
    List<ProcessEvent> lines = events.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>());
    ControllerConfig.Builder builder = ControllerConfig.newBuilder();
    more.accept(builder);
    if (upstreamAgentNamespace != null) {
      builder.upstreamAgentNamespace(upstreamAgentNamespace);
    }
    IPPoolController controller =
        IPPoolController.start(
            client,
            builder
                .identity(name)
                .leaseNamespace(home.name())
                .leaseDuration(LEASE)
                .renewDeadline(RENEW)
                .retryPeriod(RETRY)
                .agentImage(IMAGE)
                .workers(workers)
                .clock(clock)
                .events(
                    line -> {
                      lines.add(ProcessEvent.parse(line).orElseThrow());
                      System.out.println(line);
                    })
                .build());
    controllers.put(name, controller);
    return controller;
  }

  /** The leader among the started, open controllers, once there is exactly one. */
  IPPoolController awaitLeader(Duration timeout) {
    AtomicReference<IPPoolController> leader = new AtomicReference<>();
    Await.until(
        "exactly one leading controller",
        timeout,
        () -> {
          List<IPPoolController> leading =
              controllers.values().stream().filter(IPPoolController::isLeader).toList();
          leader.set(leading.size() == 1 ? leading.get(0) : null);
          return leader.get() != null;
        });
    return leader.get(); // from the same look that saw exactly one
  }

  /** Waits until a controller leads with nothing queued, running or waiting for a retry. */
  void awaitIdle(Duration timeout) {
    Await.until(
        "the leader is idle",
        timeout,
        () -> controllers.values().stream().anyMatch(IPPoolController::idleLeader));
  }

  /** Closes one controller (it steps down and releases the Lease). */
  void stop(String name) {
    IPPoolController c = controllers.remove(name);
    if (c != null) {
      c.close();
    }
  }

  /** The open controller named {@code name}. */
  IPPoolController controller(String name) {
    return controllers.get(name);
  }

  List<ProcessEvent> events(String name) {
    return events.getOrDefault(name, List.of());
  }

  @Override
  public void close() {
    for (String name : List.copyOf(controllers.keySet())) {
      stop(name);
    }
  }

  // ------------------------------------------------------------------ objects

  /** A valid pool: 10.x.0.0/24 (x from {@code subnet}), server .2, router .1, range .10-.250. */
  static IPPool pool(String namespace, String name, int subnet) {
    String net = "10." + subnet + ".0.";
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace(namespace).name(name))
        .spec(
            new IPPoolSpec()
                .networkName(namespace + "/" + name)
                .ipv4Config(
                    new IPv4Config()
                        .cidr(net + "0/24")
                        .serverIP(net + "2")
                        .router(net + "1")
                        .pool(new Pool().start(net + "10").end(net + "250"))));
  }

  IPPool create(IPPool pool) throws ApiException {
    return pools.create(pool).throwsApiException().getObject();
  }

  IPPool read(String namespace, String name) throws ApiException {
    return pools.get(namespace, name).throwsApiException().getObject();
  }

  /** Re-reads the pool, applies {@code change}, and updates it; retries on conflict. */
  IPPool edit(IPPool pool, java.util.function.Consumer<IPPool> change) throws ApiException {
    for (int i = 0; ; i++) {
      IPPool fresh = read(pool.getMetadata().getNamespace(), pool.getMetadata().getName());
      change.accept(fresh);
      var response = pools.update(fresh);
      if (response.getHttpStatusCode() != 409 || i > 20) {
        return response.throwsApiException().getObject();
      }
    }
  }

  static VirtualMachineNetworkConfig vmConfig(
      String namespace, String name, List<NetworkConfig> nics) {
    return new VirtualMachineNetworkConfig()
        .metadata(new V1ObjectMeta().namespace(namespace).name(name))
        .spec(new VirtualMachineNetworkConfig.Spec().vmName(name).networkConfigs(nics));
  }

  static NetworkConfig nic(String network, String mac) {
    return new NetworkConfig().networkName(network).macAddress(mac);
  }

  VirtualMachineNetworkConfig create(VirtualMachineNetworkConfig config) throws ApiException {
    return configs.create(config).throwsApiException().getObject();
  }

  VirtualMachineNetworkConfig readConfig(String namespace, String name) throws ApiException {
    return configs.get(namespace, name).throwsApiException().getObject();
  }

  /** Whether the config's Allocated condition is True; false while it cannot be read. */
  boolean allocated(String namespace, String name) {
    try {
      VirtualMachineNetworkConfig c = readConfig(namespace, name);
      return c.getStatus() != null
          && c.getStatus()
              .condition(PoolCondition.ALLOCATED)
              .map(PoolCondition::isTrue)
              .orElse(false);
    } catch (Exception e) {
      return false;
    }
  }

  V1Deployment deployment(String namespace, String name) throws ApiException {
    return apps.readNamespacedDeployment(name, namespace).execute();
  }

  /** The agent Deployment of pool {@code namespace/pool}, in the controller's namespace. */
  V1Deployment agent(String namespace, String pool) throws ApiException {
    return deployment(home.name(), AgentDeployment.name(namespace, pool));
  }

  boolean absent(ApiCall call) {
    try {
      call.run();
      return false;
    } catch (ApiException e) {
      return e.getCode() == 404;
    }
  }

  interface ApiCall {
    Object run() throws ApiException;
  }

  /**
   * Makes the leader reconcile the pool {@code namespace/name} once more, by touching an annotation
   * no reconciler reads, and waits until it has and is idle again; returns the leader. A settled
   * pool must not be written by that reconcile: that is how an update loop would show.
   */
  IPPoolController reconcileAgain(String namespace, String name, Duration timeout)
      throws ApiException {
    IPPoolController leader = awaitLeader(timeout);
    long before = leader.stats().reconciles.get();
    edit(
        read(namespace, name),
        p -> p.getMetadata().putAnnotationsItem("test.elector.dev/touched", Long.toString(before)));
    Await.until(
        "the leader reconciles " + namespace + "/" + name + " again",
        timeout,
        () -> leader.stats().reconciles.get() > before && leader.idleLeader());
    return leader;
  }

  /** The system clock plus an offset the test moves forward. */
  static final class MovableClock extends Clock {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    void advance(Duration by) {
      offset.updateAndGet(o -> o.plus(by));
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset.get());
    }
  }
}
