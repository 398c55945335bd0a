package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolStatus;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.ObjectRef;
import dev.elector.ippool.PoolCondition;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one IPPool in step: its finalizer, its agent Deployment in the agents' namespace (created,
 * updated only when an owned field differs, scaled to zero while paused, deleted on pool deletion
 * and when its pool is gone; one an earlier version ran in the pool's namespace deleted once the
 * new one serves), the agents' ServiceAccount, Roles (naming the pool and its Lease; the pool taken
 * out of them on deletion) and RoleBindings, the allocation table's markers and counts, and the
 * conditions Registered, CacheReady, NetworkReady (its NetworkAttachmentDefinition exists; looked
 * at again every 10 s while it does not), AgentReady and Stopped. An invalid spec is reported in
 * Registered and changes nothing else: an existing agent keeps serving the last valid
 * configuration.
 */
final class PoolReconciler implements KeyReconciler {
  /** Finalizer that lets the controller delete the agent Deployment before the pool goes. */
  static final String FINALIZER = "network.harvesterhci.io/dhcp-agent-cleanup";

  private static final Logger log = LoggerFactory.getLogger(PoolReconciler.class);

  private final ClusterCache cache;
  private final LeaderWrites writes;

  /** The agents' RBAC of the pool's namespace; null where another term keeps it (shards). */
  private final AgentAccess access;

  private final NetworkAttachments networks;
  private final ControllerConfig config;

  /** Where the agent Deployments run. */
  private final String agentNamespace;

  private final EventLog events;
  private final ObjectEvents objectEvents;
  private final ControllerStats stats;
  private final WarnOnce warnings;
  private final Clock clock;

  private final AgentRetirement retirement;

  PoolReconciler(
      ClusterCache cache,
      LeaderWrites writes,
      AgentAccess access,
      NetworkAttachments networks,
      ControllerConfig config,
      EventLog events,
      ObjectEvents objectEvents,
      ControllerStats stats,
      WarnOnce warnings) {
    this.cache = cache;
    this.writes = writes;
    this.access = access;
    this.networks = networks;
    this.config = config;
    this.agentNamespace = config.agents() ? config.resolvedAgentNamespace() : null;
    this.events = events;
    this.objectEvents = objectEvents;
    this.stats = stats;
    this.warnings = warnings;
    this.clock = config.clock();
    this.retirement =
        new AgentRetirement(
            cache, writes, agentNamespace, config.upstreamAgentNamespace(), events, stats);
  }

  /** Prefix of the agent's conflict reports on a pool: {@code <prefix><IP>: <MAC>}. */
  static final String DECLINED_PREFIX = "declined.network.harvesterhci.io/";

  /** An operator's request to free conflicting addresses: {@code all}, or IPs by commas. */
  static final String CLEAR_CONFLICTS = "network.harvesterhci.io/clear-conflicts";

  @Override
  public Result reconcile(String namespace, String name) throws ApiException {
    String key = namespace + "/" + name;
    IPPool pool = cache.pool(key);
    if (pool == null) {
      warnings.forget(key);
      retirement.poolGone(namespace, name);
      return DONE;
    }
    if (KubeObjects.deleting(pool)) {
      return finalizeDeletion(pool);
    }
    pool = ensureFinalizer(pool);
    PoolValidation validation = PoolValidation.validate(pool.getSpec(), config.serviceSubnet());
    String deploymentName = AgentDeployment.name(namespace, name);
    boolean paused = pool.getSpec() != null && pool.getSpec().isPaused();
    IPPoolStatus current = pool.getStatus() == null ? new IPPoolStatus() : pool.getStatus();
    Conditions conditions = new Conditions(current.getConditions(), now());
    IPPoolStatus next =
        new IPPoolStatus()
            .ipv4(current.getIpv4())
            .agentDeploymentRef(current.getAgentDeploymentRef())
            .agentPodRef(current.getAgentPodRef())
            .lastUpdate(current.getLastUpdate());
    Agent agent = new Agent(cache.deployment(agentNamespace, deploymentName), null);
    IPPool owner =
        pool.getSpec() == null || pool.getSpec().getNetworkName() == null
            ? null
            : OnePoolPerNetwork.servedByOther(
                    pool, cache.poolsOnNetwork(pool.getSpec().getNetworkName()))
                .orElse(null);
    if (owner != null) {
      standAside(pool, owner, agent.live(), conditions);
      next.agentPodRef(null); // no agent of its own
      setStopped(conditions, paused);
      next.conditions(conditions.list());
      writeIfChanged(pool, current, next);
      return DONE;
    }
    boolean networkFound = true;
    if (validation.isValid()) {
      warnings.forget(key);
      NetworkAttachments.Check network =
          networks.check(
              pool.getSpec().getNetworkName(),
              pool.getMetadata().getNamespace(),
              pool.getMetadata().getName());
      if (config.agents()) {
        // While the network cannot be read, the agents stay where they are.
        String clusterNetwork =
            network.found()
                ? network.clusterNetwork()
                : AgentDeployment.clusterNetworkOf(agent.live());
        agent = syncAgent(pool, paused, agent.live(), clusterNetwork);
      }
      AllocationTable table = syncTable(pool, current, validation.layout());
      next.ipv4(table.toStatus())
          .agentDeploymentRef(
              config.agents()
                  ? new ObjectRef().namespace(agentNamespace).name(deploymentName)
                  : null)
          // written by the agents' leader; gone with the agents
          .agentPodRef(config.agents() && !paused ? current.getAgentPodRef() : null);
      setRegistered(conditions, pool, validation);
      networkFound = reportNetwork(conditions, pool, network);
    } else {
      reportInvalid(conditions, pool, validation);
    }
    setStopped(conditions, paused);
    setAgentReady(
        conditions,
        agent.live(),
        paused,
        validation.isValid(),
        agent.problem(),
        agentNamespace,
        deploymentName);
    next.conditions(conditions.list());
    writeIfChanged(pool, current, next);
    if (agent.problem() == null && AgentDeployment.serving(agent.live())) {
      retirement.agentServes(pool);
    }
    if (validation.isValid()) {
      removeHandledReports(pool);
    }
    return networkFound ? DONE : new Result(true, NetworkAttachments.RECHECK);
  }

  /** The agent Deployment as it is after {@link #syncAgent}, and why it is not ours, if so. */
  private record Agent(V1Deployment live, String problem) {}

  /** Step 1: the cleanup finalizer is on the pool before anything is made for it. */
  private IPPool ensureFinalizer(IPPool pool) throws ApiException {
    if (KubeObjects.hasFinalizer(pool, FINALIZER) && !KubeObjects.hasUpstreamFinalizer(pool)) {
      return pool;
    }
    IPPool updated = writes.updatePool(KubeObjects.withFinalizer(pool, FINALIZER, IPPool.class));
    log.info("IPPool {}: added finalizer {}", pool.ref(), FINALIZER);
    return updated;
  }

  /**
   * Step 2 (another pool serves the network): this pool serves nothing. Registered says which pool
   * serves and what to do; an agent it has (made before that rule held) is deleted, since two DHCP
   * servers would answer on one network; its table is kept as it is, and the NetworkAttachment's
   * labels stay the serving pool's.
   */
  private void standAside(IPPool pool, IPPool owner, V1Deployment agent, Conditions conditions)
      throws ApiException {
    String key = pool.ref();
    String message = OnePoolPerNetwork.message(pool, owner);
    if (warnings.first(key + "#network", pool.getMetadata().getGeneration())) {
      log.warn("IPPool {}: {}", key, message);
      objectEvents.warning(pool, OnePoolPerNetwork.REASON, message);
    }
    if (agent != null && AgentDeployment.agentOf(agent, key)) {
      retirement.standingAside(pool);
    }
    conditions.set(PoolCondition.REGISTERED, false, OnePoolPerNetwork.REASON, message);
    conditions.set(
        PoolCondition.CACHE_READY,
        false,
        OnePoolPerNetwork.REASON,
        "the allocation table is not maintained while another pool serves the network; see the"
            + " Registered condition");
    conditions.set(
        PoolCondition.AGENT_READY,
        false,
        "NoAgent",
        "no agent runs for this pool: IPPool " + KubeObjects.key(owner) + " serves its network");
  }

  /** Step 2 (invalid spec): Registered and CacheReady say why; nothing else changes. */
  private void reportInvalid(Conditions conditions, IPPool pool, PoolValidation validation) {
    String key = pool.ref();
    if (warnings.first(key, pool.getMetadata().getGeneration())) {
      log.warn(
          "IPPool {} generation {} is invalid: {}",
          key,
          pool.getMetadata().getGeneration(),
          validation.message());
    }
    conditions.set(PoolCondition.REGISTERED, false, validation.reason(), validation.message());
    conditions.set(
        PoolCondition.CACHE_READY,
        false,
        "PoolInvalid",
        "the allocation table is"
            + " not maintained while the spec is invalid; see the Registered condition");
  }

  /**
   * Step 2 (valid spec): the agents' identity, and the agent Deployment created, updated or scaled
   * when an owned field differs; a foreign Deployment of that name is left alone and reported.
   */
  private Agent syncAgent(IPPool pool, boolean paused, V1Deployment live, String clusterNetwork)
      throws ApiException {
    String key = pool.ref();
    String namespace = pool.getMetadata().getNamespace();
    String deploymentName = AgentDeployment.name(namespace, pool.getMetadata().getName());
    if (access != null) {
      access.ensure(namespace);
    }
    int replicas = paused ? 0 : config.agentReplicas();
    V1Deployment rendered =
        AgentDeployment.render(
            pool,
            agentNamespace,
            AgentDeployment.imageFor(pool, live, config.agentImage()),
            config.agentImagePullPolicy(),
            replicas,
            !config.dhcp(),
            config.agentLeaderElection(),
            config.agentPlacement(),
            clusterNetwork);
    if (live == null) {
      V1Deployment created = writes.createDeployment(rendered);
      stats.deploymentWrites.incrementAndGet();
      log.info(
          "IPPool {}: created agent Deployment {} with {} replicas", key, deploymentName, replicas);
      events.emit(
          "DEPLOYMENT",
          "action",
          "created",
          "pool",
          key,
          "deployment",
          agentNamespace + "/" + deploymentName,
          "replicas",
          replicas);
      return new Agent(created, null);
    }
    if (!AgentDeployment.agentOf(live, key)) {
      String problem =
          "Deployment "
              + agentNamespace
              + "/"
              + deploymentName
              + " exists but is not"
              + " the agent of this pool managed by this controller; delete or rename it";
      if (warnings.first(key + "#deployment", pool.getMetadata().getGeneration())) {
        log.warn("IPPool {}: {}", key, problem);
      }
      return new Agent(live, problem);
    }
    if (!AgentDeployment.differs(live, rendered)) {
      log.debug("IPPool {}: agent Deployment {} is up to date", key, deploymentName);
      return new Agent(live, null);
    }
    boolean scaleOnly = AgentDeployment.onlyReplicasDiffer(live, rendered);
    V1Deployment update = KubeObjects.copy(live, V1Deployment.class);
    update
        .getMetadata()
        .labels(rendered.getMetadata().getLabels())
        .annotations(withPoolAnnotation(live, rendered));
    update.spec(rendered.getSpec()).status(null);
    V1Deployment replaced = writes.replaceDeployment(update);
    stats.deploymentWrites.incrementAndGet();
    log.info(
        "IPPool {}: {} agent Deployment {} ({} replicas)",
        key,
        scaleOnly ? "scaled" : "updated",
        deploymentName,
        replicas);
    events.emit(
        "DEPLOYMENT",
        "action",
        scaleOnly ? "scaled" : "updated",
        "pool",
        key,
        "deployment",
        agentNamespace + "/" + deploymentName,
        "replicas",
        replicas);
    return new Agent(replaced, null);
  }

  /** The live Deployment's annotations, with the pool's annotation of {@code rendered}. */
  private static Map<String, String> withPoolAnnotation(V1Deployment live, V1Deployment rendered) {
    Map<String, String> annotations =
        new java.util.LinkedHashMap<>(
            live.getMetadata().getAnnotations() == null
                ? Map.of()
                : live.getMetadata().getAnnotations());
    annotations.putAll(rendered.getMetadata().getAnnotations());
    return annotations;
  }

  /** Step 3: the allocation table normalised under the layout, with the conflict reports. */
  private AllocationTable syncTable(IPPool pool, IPPoolStatus current, PoolLayout layout) {
    AllocationTable table =
        AllocationTable.of(
            layout, current.getIpv4() == null ? Map.of() : current.getIpv4().getAllocated());
    table = applyConflictReports(pool, table);
    if (!table.evicted().isEmpty()) {
      log.info(
          "IPPool {}: addresses of MACs {} are no longer allowed by the spec; they get new ones",
          pool.ref(),
          table.evicted());
    }
    return table;
  }

  /** Step 4: Registered and CacheReady for a valid spec (noting what a stored pool is spared). */
  private static void setRegistered(Conditions conditions, IPPool pool, PoolValidation validation) {
    StringBuilder message =
        new StringBuilder("the spec is valid; network ")
            .append(pool.getSpec().getNetworkName())
            .append(", range ")
            .append(validation.layout().range());
    for (PoolValidation.Problem p : validation.tolerated()) {
      message.append("; ").append(p.message());
    }
    conditions.set(PoolCondition.REGISTERED, true, "Registered", message.toString());
    conditions.set(
        PoolCondition.CACHE_READY,
        true,
        "TableReady",
        "status.ipv4.allocated"
            + " holds the reserved and excluded addresses and every allocation");
  }

  /** Step 5: NetworkReady; false asks for another look in {@link NetworkAttachments#RECHECK}. */
  private boolean reportNetwork(
      Conditions conditions, IPPool pool, NetworkAttachments.Check network) {
    conditions.set(
        PoolCondition.NETWORK_READY, network.found(), network.reason(), network.message());
    if (!network.found()) {
      objectEvents.warning(pool, network.reason(), network.message());
    }
    return network.found();
  }

  /** Step 6: Stopped follows spec.paused. */
  private static void setStopped(Conditions conditions, boolean paused) {
    if (paused) {
      conditions.set(
          PoolCondition.STOPPED,
          true,
          "Paused",
          "spec.paused is true; the agent is"
              + " scaled to zero and no new addresses are allocated");
    } else {
      conditions.set(PoolCondition.STOPPED, false, "Running", "the pool is not paused");
    }
  }

  private void setAgentReady(
      Conditions conditions,
      V1Deployment live,
      boolean paused,
      boolean valid,
      String problem,
      String namespace,
      String deploymentName) {
    if (problem != null) {
      conditions.set(PoolCondition.AGENT_READY, false, "DeploymentConflict", problem);
    } else if (live == null) {
      conditions.set(
          PoolCondition.AGENT_READY,
          false,
          "NoAgent",
          !config.agents()
              ? "the controller runs with --no-agent: no agent serves this pool"
              : valid
                  ? "the agent Deployment "
                      + namespace
                      + "/"
                      + deploymentName
                      + " does not exist yet"
                  : "no agent runs while the spec is invalid");
    } else if (paused) {
      conditions.set(
          PoolCondition.AGENT_READY,
          false,
          "Paused",
          "the pool is paused; its agent" + " Deployment is scaled to zero");
    } else {
      int ready =
          live.getStatus() == null || live.getStatus().getReadyReplicas() == null
              ? 0
              : live.getStatus().getReadyReplicas();
      int wanted =
          live.getSpec() == null || live.getSpec().getReplicas() == null
              ? 0
              : live.getSpec().getReplicas();
      String message = ready + " of " + wanted + " agent replicas ready";
      if (ready > 0) {
        conditions.set(PoolCondition.AGENT_READY, true, "AgentReady", message);
      } else {
        conditions.set(PoolCondition.AGENT_READY, false, "NoReadyReplica", message);
      }
    }
  }

  private void writeIfChanged(IPPool pool, IPPoolStatus current, IPPoolStatus next)
      throws ApiException {
    String key = pool.ref();
    IPPoolStatus comparable =
        new IPPoolStatus()
            .ipv4(current.getIpv4())
            .agentDeploymentRef(current.getAgentDeploymentRef())
            .agentPodRef(current.getAgentPodRef())
            .conditions(current.getConditions())
            .lastUpdate(next.getLastUpdate());
    if (comparable.equals(next)) {
      log.debug("IPPool {}: status is up to date", key);
      return;
    }
    IPPool update = KubeObjects.copy(pool, IPPool.class).status(next.lastUpdate(now()));
    writes.replacePoolStatus(update);
    stats.poolStatusWrites.incrementAndGet();
    for (PoolCondition c : next.getConditions()) {
      PoolCondition before = current.condition(c.getType()).orElse(null);
      if (before == null
          || !Objects.equals(before.getStatus(), c.getStatus())
          || !Objects.equals(before.getReason(), c.getReason())) {
        events.emit(
            "CONDITION",
            "pool",
            key,
            "type",
            c.getType(),
            "status",
            c.getStatus(),
            "reason",
            c.getReason());
      }
    }
    IPv4Status ipv4 = next.getIpv4();
    log.info("IPPool {}: status written ({})", key, next.getConditions());
    events.emit(
        "POOL_STATUS",
        "pool",
        key,
        "used",
        ipv4 == null ? null : ipv4.getUsed(),
        "available",
        ipv4 == null ? null : ipv4.getAvailable());
  }

  /**
   * Conflicts reported by the agent ({@value #DECLINED_PREFIX}IP: MAC, one annotation per declined
   * address) become {@code CONFLICT} markers; the operator's {@value #CLEAR_CONFLICTS} ({@code
   * all}, or addresses separated by commas) frees them again.
   */
  private AllocationTable applyConflictReports(IPPool pool, AllocationTable table) {
    String key = pool.ref();
    Map<String, String> annotations =
        pool.getMetadata().getAnnotations() == null
            ? Map.of()
            : pool.getMetadata().getAnnotations();
    for (Map.Entry<String, String> a : annotations.entrySet()) {
      if (!a.getKey().startsWith(DECLINED_PREFIX)) {
        continue;
      }
      String ip = a.getKey().substring(DECLINED_PREFIX.length());
      java.util.Optional<Long> address = Ipv4.parse(ip);
      if (address.isEmpty()
          || IPv4Status.CONFLICT.equals(table.holder(address.get()).orElse(null))) {
        continue;
      }
      String holder = table.holder(address.get()).orElse(null);
      AllocationTable marked = table.withConflict(address.get());
      if (marked == table) {
        continue; // outside the range, reserved or excluded: nothing to take out of use
      }
      table = marked;
      String message =
          ip
              + " was declined by "
              + a.getValue()
              + " (DHCPDECLINE: the address is"
              + " in use on the network)"
              + (holder != null && !IPv4Status.isMarker(holder)
                  ? "; " + holder + " gets another address"
                  : "")
              + "; it stays out of use until"
              + " cleared: kubectl annotate ippool -n "
              + pool.getMetadata().getNamespace()
              + " "
              + pool.getMetadata().getName()
              + " "
              + CLEAR_CONFLICTS
              + "="
              + ip;
      log.warn("IPPool {}: {}", key, message);
      events.emit("CONFLICT", "pool", key, "ip", ip, "mac", a.getValue(), "action", "marked");
      objectEvents.warning(pool, "AddressConflict", message);
    }
    String clear = annotations.get(CLEAR_CONFLICTS);
    if (clear != null) {
      java.util.List<String> ips =
          "all".equals(clear.trim())
              ? table.conflicts()
              : java.util.Arrays.stream(clear.split(",")).map(String::trim).toList();
      for (String ip : ips) {
        java.util.Optional<Long> address = Ipv4.parse(ip);
        if (address.isPresent()
            && IPv4Status.CONFLICT.equals(table.holder(address.get()).orElse(null))
            && !annotations.containsKey(DECLINED_PREFIX + ip)) {
          table = table.withoutConflict(address.get());
          log.info("IPPool {}: conflict on {} cleared by {}", key, ip, CLEAR_CONFLICTS);
          events.emit("CONFLICT", "pool", key, "ip", ip, "action", "cleared");
        }
      }
    }
    return table;
  }

  /** Removes the conflict reports and the clear request once the status holds them. */
  private void removeHandledReports(IPPool pool) throws ApiException {
    Map<String, String> annotations = pool.getMetadata().getAnnotations();
    if (annotations == null
        || annotations.keySet().stream()
            .noneMatch(k -> k.startsWith(DECLINED_PREFIX) || k.equals(CLEAR_CONFLICTS))) {
      return;
    }
    IPPool fresh =
        KubeObjects.copy(
            writes.readPool(pool.getMetadata().getNamespace(), pool.getMetadata().getName()),
            IPPool.class);
    Map<String, String> kept =
        new java.util.LinkedHashMap<>(
            fresh.getMetadata().getAnnotations() == null
                ? Map.of()
                : fresh.getMetadata().getAnnotations());
    // only what this reconcile handled: a report that arrived since stays for the next one
    annotations.forEach(
        (k, v) -> {
          if ((k.startsWith(DECLINED_PREFIX) || k.equals(CLEAR_CONFLICTS))
              && v.equals(kept.get(k))) {
            kept.remove(k);
          }
        });
    fresh.getMetadata().setAnnotations(kept);
    writes.updatePool(fresh);
  }

  private Result finalizeDeletion(IPPool pool) throws ApiException {
    String key = pool.ref();
    if (!KubeObjects.hasFinalizer(pool, FINALIZER) && !KubeObjects.hasUpstreamFinalizer(pool)) {
      return DONE;
    }
    List<String> users = PoolUsage.users(pool, cache::poolsOnNetwork, cache::configsOnNetwork);
    if (!users.isEmpty()) {
      holdDeletion(pool, users);
      return DONE;
    }
    String namespace = pool.getMetadata().getNamespace();
    retirement.poolDeleting(pool);
    if (access != null) {
      access.release(namespace);
    }
    writes.updatePool(KubeObjects.withoutFinalizer(pool, FINALIZER, IPPool.class));
    warnings.forget(key);
    log.info("IPPool {}: finalizer {} removed", key, FINALIZER);
    events.emit("FINALIZED", "kind", IPPool.KIND, "object", key);
    return DONE;
  }

  /**
   * A pool still in use is not finalized: the agent keeps serving, and DeletionBlocked says which
   * configs hold it. A change of any config on its network queues the pool again.
   */
  private void holdDeletion(IPPool pool, List<String> users) throws ApiException {
    IPPoolStatus current = pool.getStatus() == null ? new IPPoolStatus() : pool.getStatus();
    Conditions conditions = new Conditions(current.getConditions(), now());
    String message = PoolUsage.message(pool, users);
    conditions.set(PoolCondition.DELETION_BLOCKED, true, "InUse", message);
    if (warnings.first(pool.ref() + "#in-use", (long) users.size())) {
      log.warn("IPPool {}: {}", pool.ref(), message);
    }
    IPPoolStatus next =
        new IPPoolStatus()
            .ipv4(current.getIpv4())
            .agentDeploymentRef(current.getAgentDeploymentRef())
            .agentPodRef(current.getAgentPodRef())
            .lastUpdate(current.getLastUpdate())
            .conditions(conditions.list());
    writeIfChanged(pool, current, next);
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock)
        .withOffsetSameInstant(ZoneOffset.UTC)
        .truncatedTo(ChronoUnit.SECONDS);
  }
}
