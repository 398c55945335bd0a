package dev.elector.controller;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolList;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfigList;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.shard.ShardGroup;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way back: removes what the controller made, so that an uninstall leaves nothing behind and
 * upstream's controller can take the cluster again. The IPPools and VirtualMachineNetworkConfigs
 * stay (they are the users' objects, and upstream serves the same CRDs), without this controller's
 * finalizers, which nobody would remove once it is gone; the agent Deployments go, and so do the
 * agents' ServiceAccount, Roles, RoleBindings and Leases, the controller's Leases and the webhook's
 * certificate Secret.
 *
 * <p>It first becomes the leader of the controller's Lease (every shard's Lease over shards), as a
 * candidate of its own, so no controller term runs while it works: a controller still running would
 * put its finalizers and agents back. It waits for that at most {@code leaderWait} and fails naming
 * the holder; the chart runs it as a post-delete hook, after the controller's Deployment is
 * deleted, when the stopping replicas release the Lease.
 */
final class Uninstall {
  private static final Logger log = LoggerFactory.getLogger(Uninstall.class);
  private static final int CONFLICT_RETRIES = 10;

  /** What an uninstall removed. */
  record Report(
      int poolFinalizers,
      int configFinalizers,
      int agentDeployments,
      int rbacObjects,
      int leases,
      int secrets) {
    /** This report with {@code more} Leases deleted. */
    Report plusLeases(int more) {
      return new Report(
          poolFinalizers, configFinalizers, agentDeployments, rbacObjects, leases + more, secrets);
    }

    @Override
    public String toString() {
      return "removed the controller's finalizer from "
          + poolFinalizers
          + " IPPools and "
          + configFinalizers
          + " VirtualMachineNetworkConfigs; deleted "
          + agentDeployments
          + " agent Deployments, "
          + rbacObjects
          + " ServiceAccounts, Roles and RoleBindings of the agents, "
          + leases
          + " Leases and "
          + secrets
          + " Secrets";
    }
  }

  private final ApiClient client;
  private final ControllerConfig config;
  private final Optional<String> webhookSecret;
  private final String leaseNamespace;
  private final List<Term> terms = new ArrayList<>();

  /**
   * @param webhookSecret the webhook certificate's Secret the controllers shared, if any
   */
  Uninstall(ApiClient client, ControllerConfig config, Optional<String> webhookSecret) {
    this.client = client;
    this.config = config;
    this.webhookSecret = webhookSecret;
    this.leaseNamespace =
        config
            .leaseNamespace()
            .or(() -> PodEnvironment.system().namespace())
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no namespace for the controller's Lease: set POD_NAMESPACE or"
                            + " --lease-namespace"));
  }

  /**
   * Leads the controller's Lease(s), removes what the controller made, then releases and deletes
   * them.
   *
   * @throws TimeoutException if a controller still leads after {@code leaderWait}
   */
  Report run(Duration leaderWait) throws ApiException, InterruptedException, TimeoutException {
    List<String> controllerLeases = controllerLeases();
    List<LeaderElector> electors =
        config.leaderElection() ? lead(controllerLeases, leaderWait) : List.of();
    Report report;
    try {
      report = removeAll();
    } finally {
      electors.forEach(LeaderElector::close); // releases
    }
    int leases = 0;
    if (config.leaderElection()) {
      for (String name : controllerLeases) {
        leases += deleteLease(leaseNamespace, name) ? 1 : 0;
      }
      if (config.shards() > 0) {
        leases += deleteMemberLeases();
      }
    }
    Report done = report.plusLeases(leases);
    log.info("uninstall: {}", done);
    return done;
  }

  private List<String> controllerLeases() {
    if (config.shards() == 0) {
      return List.of(config.leaseName());
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < config.shards(); i++) {
      names.add(ShardGroup.shardName(config.leaseName(), i));
    }
    return names;
  }

  /** The holder the Lease names, for the message of a wait that timed out. */
  private String holderOf(String lease) {
    try {
      V1Lease found =
          new CoordinationV1Api(client).readNamespacedLease(lease, leaseNamespace).execute();
      return found.getSpec() == null || found.getSpec().getHolderIdentity() == null
          ? "no holder"
          : found.getSpec().getHolderIdentity();
    } catch (ApiException e) {
      return "unreadable (HTTP " + e.getCode() + ")";
    }
  }

  private List<LeaderElector> lead(List<String> leases, Duration wait)
      throws InterruptedException, TimeoutException {
    String identity =
        config.identity().orElseGet(() -> PodEnvironment.system().defaultIdentity()) + "-uninstall";
    CountDownLatch leading = new CountDownLatch(leases.size());
    Map<String, String> holders = new ConcurrentHashMap<>();
    List<LeaderElector> electors = new ArrayList<>();
    for (String name : leases) {
      KubeLock lock =
          LeaseLock.newBuilder(client)
              .name(name)
              .namespace(leaseNamespace)
              .identity(identity)
              .build();
      electors.add(
          LeaderElector.start(
              ElectorConfig.newBuilder()
                  .lock(lock)
                  .leaseDuration(config.leaseDuration())
                  .renewDeadline(config.renewDeadline())
                  .retryPeriod(config.retryPeriod())
                  .callbacks(
                      new LeaderCallbacks() {
                        @Override
                        public void onStartedLeading(Term term) {
                          synchronized (terms) {
                            terms.add(term);
                          }
                          leading.countDown();
                        }

                        @Override
                        public void onStoppedLeading(Term term, TermEnd reason) {}

                        @Override
                        public void onNewLeader(String leader) {
                          holders.put(name, leader);
                        }
                      })
                  .build()));
    }
    log.info(
        "uninstall: waiting to lead {} in {} as {} (at most {} s), so that no controller works"
            + " meanwhile",
        leases,
        leaseNamespace,
        identity,
        wait.toSeconds());
    if (!leading.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
      electors.forEach(LeaderElector::close);
      for (String name : leases) {
        holders.computeIfAbsent(name, this::holderOf);
      }
      throw new TimeoutException(
          "a controller still leads after "
              + wait.toSeconds()
              + " s ("
              + holders
              + " in "
              + leaseNamespace
              + "); stop the controller first: delete its Deployment, or scale it to 0");
    }
    return electors;
  }

  /** Every removal, while this process leads. */
  private Report removeAll() throws ApiException {
    GenericKubernetesApi<IPPool, IPPoolList> poolApi = NetworkApis.ipPools(client);
    GenericKubernetesApi<VirtualMachineNetworkConfig, VirtualMachineNetworkConfigList> configApi =
        NetworkApis.vmNetworkConfigs(client);
    List<IPPool> pools = poolApi.list().throwsApiException().getObject().getItems();
    int poolFinalizers = 0;
    for (IPPool pool : pools) {
      poolFinalizers += dropFinalizer(poolApi, pool, PoolReconciler.FINALIZER) ? 1 : 0;
    }
    int configFinalizers = 0;
    for (VirtualMachineNetworkConfig vmConfig :
        configApi.list().throwsApiException().getObject().getItems()) {
      configFinalizers += dropFinalizer(configApi, vmConfig, VmConfigReconciler.FINALIZER) ? 1 : 0;
    }

    int deployments = 0;
    int rbacObjects = 0;
    int leases = 0;
    String agents = config.resolvedAgentNamespace();
    AppsV1Api apps = new AppsV1Api(client);
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(client);
    CoreV1Api core = new CoreV1Api(client);
    if (agents != null) {
      for (V1Deployment agent :
          apps.listNamespacedDeployment(agents)
              .labelSelector(AgentDeployment.LABEL_MANAGED_BY + "=" + AgentDeployment.MANAGER)
              .execute()
              .getItems()) {
        fenced();
        deployments += gone(() -> apps.deleteNamespacedDeployment(name(agent), agents).execute());
      }
      for (IPPool pool : pools) {
        String lease =
            AgentDeployment.lockName(
                pool.getMetadata().getNamespace(), pool.getMetadata().getName());
        leases += deleteLease(agents, lease) ? 1 : 0;
      }
      fenced();
      rbacObjects +=
          gone(() -> rbac.deleteNamespacedRoleBinding(AgentRole.LEASES, agents).execute());
      rbacObjects += gone(() -> rbac.deleteNamespacedRole(AgentRole.LEASES, agents).execute());
      rbacObjects +=
          gone(() -> core.deleteNamespacedServiceAccount(AgentAccess.NAME, agents).execute());
    }
    Set<String> poolNamespaces = new TreeSet<>();
    pools.forEach(p -> poolNamespaces.add(p.getMetadata().getNamespace()));
    for (String namespace : poolNamespaces) {
      fenced();
      rbacObjects +=
          gone(() -> rbac.deleteNamespacedRoleBinding(AgentAccess.NAME, namespace).execute());
      rbacObjects += gone(() -> rbac.deleteNamespacedRole(AgentAccess.NAME, namespace).execute());
    }
    int secrets = 0;
    if (webhookSecret.isPresent()) {
      fenced();
      secrets +=
          gone(() -> core.deleteNamespacedSecret(webhookSecret.get(), leaseNamespace).execute());
    }
    return new Report(poolFinalizers, configFinalizers, deployments, rbacObjects, leases, secrets);
  }

  /** Fails once any term of this uninstall has ended: a controller may lead again. */
  private void fenced() {
    synchronized (terms) {
      for (Term term : terms) {
        if (!term.isActive()) {
          throw new TermEndedException("uninstall (its term of the controller's Lease ended)");
        }
      }
    }
  }

  /**
   * Removes {@code finalizer} from the object, re-reading it after a conflict.
   *
   * @return whether this call removed it
   */
  private <T extends KubernetesObject> boolean dropFinalizer(
      GenericKubernetesApi<T, ?> api, T object, String finalizer) throws ApiException {
    T current = object;
    for (int attempt = 0; ; attempt++) {
      List<String> finalizers = current.getMetadata().getFinalizers();
      if (finalizers == null || !finalizers.contains(finalizer)) {
        return false;
      }
      List<String> rest = new ArrayList<>(finalizers);
      rest.remove(finalizer);
      current.getMetadata().setFinalizers(rest);
      fenced();
      KubernetesApiResponse<T> updated = api.update(current);
      if (updated.isSuccess()) {
        return true;
      }
      if (updated.getHttpStatusCode() == 404) {
        return false;
      }
      if (updated.getHttpStatusCode() != 409 || attempt >= CONFLICT_RETRIES) {
        updated.throwsApiException();
      }
      KubernetesApiResponse<T> fresh =
          api.get(current.getMetadata().getNamespace(), current.getMetadata().getName());
      if (fresh.getHttpStatusCode() == 404) {
        return false;
      }
      current = fresh.throwsApiException().getObject();
    }
  }

  private boolean deleteLease(String namespace, String name) throws ApiException {
    CoordinationV1Api coordination = new CoordinationV1Api(client);
    return gone(() -> coordination.deleteNamespacedLease(name, namespace).execute()) == 1;
  }

  private int deleteMemberLeases() throws ApiException {
    CoordinationV1Api coordination = new CoordinationV1Api(client);
    String prefix = config.leaseName() + "-member-";
    int deleted = 0;
    for (V1Lease lease : coordination.listNamespacedLease(leaseNamespace).execute().getItems()) {
      if (name(lease).startsWith(prefix)) {
        deleted +=
            gone(() -> coordination.deleteNamespacedLease(name(lease), leaseNamespace).execute());
      }
    }
    return deleted;
  }

  private static String name(KubernetesObject object) {
    return object.getMetadata().getName();
  }

  private interface Delete {
    Object run() throws ApiException;
  }

  /** 1 if deleted, 0 if it was not there. */
  private static int gone(Delete delete) throws ApiException {
    try {
      delete.run();
      return 1;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return 0;
      }
      throw e;
    }
  }
}
