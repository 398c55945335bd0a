package dev.elector.controller;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents the pool reconciler removes. An agent Deployment in the controller's namespace has no
 * owner reference to its pool (none reaches across namespaces for the garbage collector), so the
 * controller deletes it itself: with its pool, or as an orphan when the pool is gone. Agents of an
 * earlier layout (a Deployment in the pool's namespace) and upstream's agent pod go once the pool's
 * new agent serves, never before, since two DHCP servers would answer the same clients.
 */
final class AgentRetirement {
  private static final Logger log = LoggerFactory.getLogger(PoolReconciler.class);

  private final ClusterCache cache;
  private final LeaderWrites writes;

  /** Where the agent Deployments run; null when this controller runs no agents. */
  private final String agentNamespace;

  /** Where upstream's agent pods run; null when no cluster is adopted from upstream. */
  private final String upstreamAgentNamespace;

  private final EventLog events;
  private final ControllerStats stats;

  /** Earlier-layout agents this controller was refused to delete (warned once each). */
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  /** Pools whose upstream agent pod this term has deleted (or found absent). */
  private final Set<String> retired = ConcurrentHashMap.newKeySet();

  AgentRetirement(
      ClusterCache cache,
      LeaderWrites writes,
      String agentNamespace,
      String upstreamAgentNamespace,
      EventLog events,
      ControllerStats stats) {
    this.cache = cache;
    this.writes = writes;
    this.agentNamespace = agentNamespace;
    this.upstreamAgentNamespace = upstreamAgentNamespace;
    this.events = events;
    this.stats = stats;
  }

  /** Upstream's name for a pool's agent pod: {@code <namespace>-<pool>-agent}. */
  static String upstreamAgentPodName(IPPool pool) {
    return pool.getMetadata().getNamespace() + "-" + pool.getMetadata().getName() + "-agent";
  }

  /** The pool's agent serves: the agents it replaces go. */
  void agentServes(IPPool pool) throws ApiException {
    V1Deployment legacy = legacyAgent(pool);
    if (legacy != null) {
      String name = legacy.getMetadata().getName();
      if (deleteLegacy(pool, name, "moved")) {
        log.info(
            "IPPool {}: its agent serves from {}; deleted the agent Deployment {}/{} of the earlier"
                + " layout",
            pool.ref(),
            agentNamespace,
            pool.getMetadata().getNamespace(),
            name);
      }
    }
    if (upstreamAgentNamespace != null && retired.add(pool.getMetadata().getUid())) {
      String name = upstreamAgentPodName(pool);
      if (writes.deletePod(upstreamAgentNamespace, name)) {
        log.info(
            "IPPool {}: its agent serves; deleted upstream's agent pod {}/{}",
            pool.ref(),
            upstreamAgentNamespace,
            name);
        events.emit(
            "UPSTREAM_AGENT",
            "action",
            "deleted",
            "pool",
            pool.ref(),
            "pod",
            upstreamAgentNamespace + "/" + name);
      }
    }
  }

  /**
   * The pool {@code namespace/name} is gone: its agent Deployment, left by a deletion this
   * controller did not see through (its finalizer removed by hand, say), goes too.
   */
  void poolGone(String namespace, String name) throws ApiException {
    String key = namespace + "/" + name;
    String deploymentName = AgentDeployment.name(namespace, name);
    V1Deployment orphan =
        agentNamespace == null ? null : cache.deployment(agentNamespace, deploymentName);
    if (orphan == null
        || !AgentDeployment.managedHere(orphan)
        || !key.equals(AgentDeployment.poolOf(orphan))) {
      log.debug("IPPool {} is gone; nothing to do", key);
      return;
    }
    delete(key, agentNamespace, deploymentName, "orphan");
    log.info("IPPool {} is gone: deleted its agent Deployment {}", key, deploymentName);
  }

  /**
   * Another pool serves this pool's network: its agent Deployment (made before that rule held)
   * goes, so that one DHCP server answers on the network.
   */
  void standingAside(IPPool pool) throws ApiException {
    String key = pool.ref();
    String deploymentName =
        AgentDeployment.name(pool.getMetadata().getNamespace(), pool.getMetadata().getName());
    delete(key, agentNamespace, deploymentName, "network-served-by-another-pool");
    log.info(
        "IPPool {}: another pool serves its network; deleted its agent Deployment {}/{}",
        key,
        agentNamespace,
        deploymentName);
  }

  /** The pool is being deleted and no longer used: its agent Deployments, of either layout, go. */
  void poolDeleting(IPPool pool) throws ApiException {
    String key = pool.ref();
    String deploymentName =
        AgentDeployment.name(pool.getMetadata().getNamespace(), pool.getMetadata().getName());
    V1Deployment live =
        agentNamespace == null ? null : cache.deployment(agentNamespace, deploymentName);
    if (agentNamespace != null && (live == null || AgentDeployment.agentOf(live, key))) {
      deleteWithPool(key, agentNamespace, deploymentName);
    }
    V1Deployment legacy = legacyAgent(pool);
    if (legacy != null && deleteLegacy(pool, legacy.getMetadata().getName(), null)) {
      log.info(
          "IPPool {} is being deleted: deleted agent Deployment {}/{}",
          key,
          pool.getMetadata().getNamespace(),
          legacy.getMetadata().getName());
    }
  }

  /**
   * Deletes the earlier layout's agent {@code name} of {@code pool}; false when this controller may
   * not. Deleting Deployments outside the agents' namespace is a right granted only for this
   * migration (the chart's {@code earlierLayoutCleanup}); without it the Deployment is left, with
   * one WARN naming it and the fix, and nothing else waits for it (one owned by the pool goes with
   * the pool through the garbage collector).
   */
  private boolean deleteLegacy(IPPool pool, String name, String reason) throws ApiException {
    String namespace = pool.getMetadata().getNamespace();
    try {
      delete(pool.ref(), namespace, name, reason);
      return true;
    } catch (ApiException e) {
      if (e.getCode() != 403) {
        throw e;
      }
      if (refused.add(namespace + "/" + name)) {
        log.warn(
            "IPPool {}: may not delete the earlier layout's agent Deployment {}/{} (403); it"
                + " serves beside the new agent until deleted: kubectl -n {} delete deployment {},"
                + " or grant delete on deployments (chart value earlierLayoutCleanup=true)",
            pool.ref(),
            namespace,
            name,
            namespace,
            name);
      }
      return false;
    }
  }

  /**
   * The pool's agent Deployment of the earlier layout, in the pool's namespace, if this controller
   * made it (owned by the pool, or labelled managed-by) and it names no pool (as the new ones do).
   */
  private V1Deployment legacyAgent(IPPool pool) {
    V1Deployment live =
        cache.deployment(
            pool.getMetadata().getNamespace(),
            AgentDeployment.legacyName(pool.getMetadata().getName()));
    return live != null
            && (AgentDeployment.controlledBy(live, pool) || AgentDeployment.managedHere(live))
            && AgentDeployment.poolOf(live) == null
        ? live
        : null;
  }

  private void deleteWithPool(String key, String namespace, String name) throws ApiException {
    delete(key, namespace, name, null);
    log.info("IPPool {} is being deleted: deleted agent Deployment {}/{}", key, namespace, name);
  }

  private void delete(String key, String namespace, String name, String reason)
      throws ApiException {
    writes.deleteDeployment(namespace, name);
    stats.deploymentWrites.incrementAndGet();
    String ref = namespace + "/" + name;
    if (reason == null) {
      events.emit("DEPLOYMENT", "action", "deleted", "pool", key, "deployment", ref);
    } else {
      events.emit(
          "DEPLOYMENT", "action", "deleted", "pool", key, "deployment", ref, "reason", reason);
    }
  }
}
