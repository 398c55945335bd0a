package dev.elector.controller;

import dev.elector.Term;
import io.kubernetes.client.extended.controller.DefaultController;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.DefaultControllerRateLimiter;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controllers of one leadership term: three client-java {@link DefaultController}s, each with a
 * rate-limited work queue (IPPools, VirtualMachineNetworkConfigs, VirtualMachines) and its
 * reconciler workers. Over shards, a term is one shard's: it queues and reconciles only the keys
 * that route to its shard ({@link ShardRouting.Owned}, checked again when a reconcile starts), and
 * the term of shard 0 runs a fourth controller that keeps the agents' RBAC of each pool namespace.
 * When taking over from upstream, the term (shard 0's) also looks for upstream's leftover webhook
 * configurations ({@link UpstreamLeftovers}) before and while its controllers work. client-java
 * controllers cannot run again once shut down, so every term builds new ones. On start every object
 * in the cache is queued, so a new leader picks up all work the previous one left; on stop the
 * controllers shut down first, and stop() waits for the reconciles in flight (whose writes check
 * the term) to return.
 *
 * <p>Two choices differ from client-java's usual wiring, both for a controller that lives for one
 * term only. The controllers are made with their constructor, because {@code
 * DefaultControllerBuilder} starts a default work queue whose non-daemon thread is never stopped
 * (one leaked thread per term). And they run on daemon threads of their own rather than in a {@code
 * ControllerManager}: its shutdown stops every informer of its factory (ours serve all terms), and
 * its non-daemon pool outlives a term that ends while it is starting.
 */
final class TermWork {
  private static final Logger log = LoggerFactory.getLogger(TermWork.class);
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final Term term;
  private final ClusterCache cache;
  private final ExecutorService queueThreads;
  private final ScheduledExecutorService poolWorkers;
  private final ScheduledExecutorService configWorkers;
  private final ScheduledExecutorService vmWorkers;
  private final RateLimitingQueue<Request> poolQueue;
  private final RateLimitingQueue<Request> configQueue;
  private final RateLimitingQueue<Request> vmQueue;
  private final GuardedReconciler pools;
  private final GuardedReconciler configs;
  private final GuardedReconciler vms;
  private final List<DefaultController> controllers;
  private final ShardRouting.Owned owned;
  private final boolean sharded;
  // over shards, in the term of shard 0 only: the agents' RBAC per namespace; else null
  private final RateLimitingQueue<Request> accessQueue;
  private final GuardedReconciler access;
  private final ScheduledExecutorService accessWorkers;
  // with an upstream to take over from, in one term (shard 0's over shards): its leftovers; else
  // null
  private final UpstreamLeftovers leftovers;
  private final ScheduledExecutorService leftoverLooks;
  private final Duration upstreamRecheck;

  TermWork(
      Term term,
      ShardRouting routing,
      int shard,
      ApiClient client,
      ClusterCache cache,
      ControllerConfig config,
      EventLog events,
      ObjectEvents objectEvents,
      ControllerStats stats,
      WarnOnce warnings) {
    this.term = term;
    this.cache = cache;
    this.owned = routing.owned(shard);
    this.sharded = routing.sharded();
    String suffix = (sharded ? "-s" + shard : "") + "-t" + term.fencingToken();
    this.queueThreads = Executors.newCachedThreadPool(Threads.daemon("ippool-queue" + suffix));
    this.poolQueue =
        new DefaultRateLimitingQueue<>(queueThreads, new DefaultControllerRateLimiter<>());
    this.configQueue =
        new DefaultRateLimitingQueue<>(queueThreads, new DefaultControllerRateLimiter<>());
    this.vmQueue =
        new DefaultRateLimitingQueue<>(queueThreads, new DefaultControllerRateLimiter<>());
    ReconcileObserver observer = config.reconcileObserver();
    LeaderWrites writes =
        new LeaderWrites(
            term, client, pool -> observer.poolWritten(pool, shard, term, System.nanoTime()));
    AgentAccess agentAccess =
        new AgentAccess(
            cache, writes, events, config.agents() ? config.resolvedAgentNamespace() : null);
    this.pools =
        new GuardedReconciler(
            "IPPool",
            term,
            observed(
                "IPPool",
                shard,
                owned::pool,
                observer,
                new PoolReconciler(
                    cache,
                    writes,
                    sharded ? null : agentAccess,
                    new NetworkAttachments(client),
                    config,
                    events,
                    objectEvents,
                    stats,
                    warnings)),
            stats);
    PoolAllocator allocator =
        new PoolAllocator(
            cache, writes, ConflictRetry.standard(), events, objectEvents, stats, config.clock());
    this.configs =
        new GuardedReconciler(
            "VirtualMachineNetworkConfig",
            term,
            observed(
                "VirtualMachineNetworkConfig",
                shard,
                owned::vmConfig,
                observer,
                new VmConfigReconciler(
                    cache,
                    writes,
                    allocator,
                    events,
                    objectEvents,
                    warnings,
                    config.clock(),
                    owned::vmConfig,
                    config.keepAddressesWhilePaused())),
            stats);
    this.vms =
        new GuardedReconciler(
            "VirtualMachine",
            term,
            observed(
                "VirtualMachine",
                shard,
                owned::vm,
                observer,
                new VmReconciler(cache, writes, events, objectEvents, warnings, config.clock())),
            stats);
    this.poolWorkers =
        Executors.newScheduledThreadPool(config.workers(), Threads.daemon("ippool-pools" + suffix));
    this.configWorkers =
        Executors.newScheduledThreadPool(
            config.workers(), Threads.daemon("ippool-vmconfigs" + suffix));
    this.vmWorkers =
        Executors.newScheduledThreadPool(config.workers(), Threads.daemon("ippool-vms" + suffix));
    List<DefaultController> all =
        new java.util.ArrayList<>(
            List.of(
                controller(
                    "ippool-pools" + suffix, pools, poolQueue, poolWorkers, config.workers()),
                controller(
                    "ippool-vmconfigs" + suffix,
                    configs,
                    configQueue,
                    configWorkers,
                    config.workers()),
                controller("ippool-vms" + suffix, vms, vmQueue, vmWorkers, config.workers())));
    if (sharded && owned.agentAccess()) {
      this.accessQueue =
          new DefaultRateLimitingQueue<>(queueThreads, new DefaultControllerRateLimiter<>());
      this.access =
          new GuardedReconciler(
              "agent RBAC", term, (namespace, name) -> syncAccess(agentAccess, namespace), stats);
      this.accessWorkers =
          Executors.newScheduledThreadPool(1, Threads.daemon("ippool-agent-rbac" + suffix));
      all.add(controller("ippool-agent-rbac" + suffix, access, accessQueue, accessWorkers, 1));
    } else {
      this.accessQueue = null;
      this.access = null;
      this.accessWorkers = null;
    }
    this.controllers = List.copyOf(all);
    this.upstreamRecheck = config.upstreamRecheck();
    if (config.upstreamAgentNamespace() != null && (!sharded || owned.agentAccess())) {
      this.leftovers =
          new UpstreamLeftovers(writes, config.upstreamAgentNamespace(), events, upstreamRecheck);
      this.leftoverLooks =
          Executors.newSingleThreadScheduledExecutor(Threads.daemon("ippool-upstream" + suffix));
    } else {
      this.leftovers = null;
      this.leftoverLooks = null;
    }
  }

  /**
   * One look for upstream's leftover webhook configurations; once they are deleted, every pool and
   * config is queued again at once (their writes were refused, and their retries may be backing
   * off), and the looking ends once nothing is left to look for.
   */
  private void lookForUpstreamLeftovers() {
    if (leftovers.clear()) {
      cache.allPools().forEach(p -> pool(KubeObjects.key(p)));
      cache.allVmConfigs().forEach(c -> vmConfig(KubeObjects.key(c)));
    }
    if (leftovers.cleared()) {
      leftoverLooks.shutdown();
    }
  }

  /**
   * A reconciler that does nothing for a key of another shard (its route may have changed since it
   * was queued: a config's networks, a new pool) and tells the observer of every reconcile it runs.
   */
  private KeyReconciler observed(
      String kind,
      int shard,
      java.util.function.Predicate<String> owns,
      ReconcileObserver observer,
      KeyReconciler delegate) {
    return (namespace, name) -> {
      String key = namespace + "/" + name;
      if (!owns.test(key)) {
        log.debug("{} {} belongs to another shard now; left to it", kind, key);
        return KeyReconciler.DONE;
      }
      long start = System.nanoTime();
      try {
        return delegate.reconcile(namespace, name);
      } finally {
        observer.reconciled(kind, key, shard, term, start, System.nanoTime());
      }
    };
  }

  /** The agents' RBAC of one namespace: kept while it has a pool, the Role deleted after. */
  private Result syncAccess(AgentAccess agentAccess, String namespace)
      throws io.kubernetes.client.openapi.ApiException {
    boolean pools = cache.poolsIn(namespace).stream().anyMatch(p -> !KubeObjects.deleting(p));
    if (pools) {
      agentAccess.ensure(namespace);
    } else {
      agentAccess.release(namespace);
    }
    return KeyReconciler.DONE;
  }

  @SuppressWarnings("unchecked") // DefaultController takes its ready checks as generic varargs
  private DefaultController controller(
      String name,
      GuardedReconciler reconciler,
      RateLimitingQueue<Request> queue,
      ScheduledExecutorService workers,
      int count) {
    DefaultController controller = new DefaultController(name, reconciler, queue, cache::hasSynced);
    controller.setWorkerCount(count);
    controller.setWorkerThreadPool(workers);
    return controller;
  }

  /** Starts the controllers and queues every known object. */
  void start() {
    for (DefaultController controller : controllers) {
      Threads.daemon(controller.getName()).newThread(() -> run(controller)).start();
    }
    if (leftoverLooks != null) { // before the queued writes, which upstream's webhook refuses
      leftoverLooks.scheduleWithFixedDelay(
          this::lookForUpstreamLeftovers, 0, upstreamRecheck.toMillis(), TimeUnit.MILLISECONDS);
    }
    cache.allPools().forEach(p -> pool(KubeObjects.key(p)));
    cache.poolsOfAgents().forEach(this::pool); // agents whose pool is gone are deleted
    cache.allVmConfigs().forEach(c -> vmConfig(KubeObjects.key(c)));
    if (cache.watchesVirtualMachines()) {
      // configs too: one whose VM went while no replica led is deleted
      cache.allVms().forEach(v -> vm(KubeObjects.key(v)));
      cache.allVmConfigs().forEach(c -> vm(KubeObjects.key(c)));
    }
    log.info(
        "{}term {}: controllers started, {} pools, {} configs and {} VMs queued",
        sharded ? "shard " + owned.shard() + " " : "",
        term.fencingToken(),
        poolQueue.length(),
        configQueue.length(),
        vmQueue.length());
  }

  private void run(DefaultController controller) {
    try {
      controller.run();
    } catch (RejectedExecutionException e) {
      log.debug("controller {} was shut down while starting", controller.getName());
    }
  }

  /** Queues a pool of this term's shard (and its namespace's agent RBAC, where kept here). */
  void pool(String key) {
    if (owned.pool(key)) {
      poolQueue.add(request(key));
    }
    if (accessQueue != null) {
      accessQueue.add(request(key.substring(0, key.indexOf('/')) + "/" + AgentAccess.NAME));
    }
  }

  /** Queues a config of this term's shard. */
  void vmConfig(String key) {
    if (owned.vmConfig(key)) {
      configQueue.add(request(key));
    }
  }

  /** Queues a VirtualMachine of this term's shard. */
  void vm(String key) {
    if (owned.vm(key)) {
      vmQueue.add(request(key));
    }
  }

  /** Whether every queue is empty and no reconcile runs or waits for a retry. */
  boolean idle() {
    return poolQueue.length() == 0
        && configQueue.length() == 0
        && vmQueue.length() == 0
        && pools.idle()
        && configs.idle()
        && vms.idle()
        && (access == null || (accessQueue.length() == 0 && access.idle()));
  }

  /** Shuts the controllers down and waits (bounded) for reconciles in flight to return. */
  void stop() {
    controllers.forEach(DefaultController::shutdown);
    try {
      List<ExecutorService> all =
          new java.util.ArrayList<>(List.of(poolWorkers, configWorkers, vmWorkers));
      if (accessWorkers != null) {
        all.add(accessWorkers);
      }
      for (ExecutorService workers : all) {
        if (!workers.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          log.warn(
              "term {}: reconcilers still running {} after shutdown; their writes are"
                  + " refused once the term has ended",
              term.fencingToken(),
              STOP_WAIT);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    queueThreads.shutdownNow();
    if (leftoverLooks != null) {
      leftoverLooks.shutdownNow();
    }
  }

  private static Request request(String key) {
    int slash = key.indexOf('/');
    return new Request(key.substring(0, slash), key.substring(slash + 1));
  }
}
