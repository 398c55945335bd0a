package dev.elector.controller;

import dev.elector.ElectorConfig;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.shard.ShardGroup;
import io.kubernetes.client.openapi.ApiClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IPPool controller: keeps every IPPool's agent Deployment, allocation table and conditions in
 * step, and allocates the addresses of VirtualMachineNetworkConfigs.
 *
 * <p>Run two or more replicas. Every replica keeps its informers synced (a hot standby); only the
 * leader, elected through a Lease with Elector's {@link LeaderElector}, reconciles. Candidacy
 * starts once the informers have synced. Each term starts fresh controllers that queue every known
 * object, so a new leader picks up all pending work; when the term ends they shut down before
 * anything else, and writes check the term first and are conditional on resourceVersion, so a
 * deposed leader cannot overwrite its successor's work.
 *
 * <p>With {@link ControllerConfig.Builder#shards shards(N)} the replicas run active-active: they
 * join a {@link ShardGroup} named after the Lease, each pool belongs to one of its N shards ({@link
 * ShardRouting}), and each shard's term runs the controllers above for that shard's pools and the
 * configs and VMs routed with them. A replica leading several shards runs one set per shard, each
 * guarded by its own term.
 *
 * <pre>{@code
 * IPPoolController controller = IPPoolController.start(ClientBuilder.standard().build(),
 *     ControllerConfig.newBuilder().build());   // Lease "ippool-controller" in POD_NAMESPACE
 * ...
 * controller.close();                          // steps down and releases the Lease
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class IPPoolController implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(IPPoolController.class);

  private final ApiClient client;
  private final ControllerConfig config;
  private final ClusterCache cache;
  private final ControllerStats stats = new ControllerStats();
  private final WarnOnce warnings = new WarnOnce();
  private final ShardRouting routing;
  // exactly one of the two: a single leader's elector, or the shard group
  private final LeaderElector elector;
  private final ShardGroup group;
  private final EventLog events;
  private final ObjectEvents objectEvents;

  /** The running work by shard (only shard 0 for a single leader). */
  private final Map<Integer, TermWork> work = new ConcurrentHashMap<>();

  private IPPoolController(ApiClient client, ControllerConfig config) {
    this.client = client;
    this.config = config;
    if (config.agents() && config.resolvedAgentNamespace() == null) {
      throw new IllegalStateException(
          "the agents' namespace is unknown: set POD_NAMESPACE (the controller's own namespace,"
              + " from the downward API), --agent-namespace or --lease-namespace");
    }
    this.cache =
        new ClusterCache(
            client,
            new ClusterCache.Sink() {
              @Override
              public void pool(String key) {
                work.values().forEach(w -> w.pool(key)); // each takes the keys of its shard
              }

              @Override
              public void vmConfig(String key) {
                work.values().forEach(w -> w.vmConfig(key));
              }

              @Override
              public void vm(String key) {
                work.values().forEach(w -> w.vm(key));
              }
            });
    this.routing =
        config.shards() == 0
            ? ShardRouting.single()
            : new ShardRouting(config.shards(), cache::vmConfig, cache::servingPools);
    if (config.shards() > 0) {
      this.elector = null;
      this.group = shardGroup(client, config);
      this.events = new EventLog(config.events(), config.clock(), group.identity());
      this.objectEvents =
          new ObjectEvents(client, "ippool-controller", group.identity(), config.clock());
      return;
    }
    this.group = null;
    KubeLock.Builder lock =
        LeaseLock.newBuilder(client)
            .name(config.leaseName())
            .recordEvents(true)
            .eventComponent("ippool-controller");
    config.leaseNamespace().ifPresent(lock::namespace);
    config.identity().ifPresent(lock::identity);
    this.elector =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .lock(
                    config.leaderElection()
                        ? lock.build()
                        // --no-leader-election: a lock no other process sees, so this one leads
                        : InMemoryLockStore.create(config.leaseName())
                            .lockFor(
                                config
                                    .identity()
                                    .orElseGet(() -> PodEnvironment.system().defaultIdentity())))
                .leaseDuration(config.leaseDuration())
                .renewDeadline(config.renewDeadline())
                .retryPeriod(config.retryPeriod())
                .readinessGate(cache.synced())
                .callbacks(
                    new LeaderCallbacks() {
                      @Override
                      public void onStartedLeading(Term term) {
                        startTerm(term);
                      }

                      @Override
                      public void onStoppedLeading(Term term, TermEnd reason) {
                        stopTerm(term, reason);
                      }

                      @Override
                      public void onNewLeader(String identity) {
                        events.emit("LEADER", "leader", identity);
                      }
                    })
                .build());
    this.events = new EventLog(config.events(), config.clock(), elector.identity());
    this.objectEvents =
        new ObjectEvents(client, "ippool-controller", elector.identity(), config.clock());
  }

  /**
   * The shard group: shard Leases {@code <lease>-shard-<i>} and member Leases {@code
   * <lease>-member-<j>} in the lease namespace, all with one identity, the elector's timings, and
   * candidacy once the informers have synced.
   */
  private ShardGroup shardGroup(ApiClient client, ControllerConfig config) {
    String identity = config.identity().orElseGet(() -> PodEnvironment.system().defaultIdentity());
    return ShardGroup.newBuilder()
        .group(config.leaseName())
        .shards(config.shards())
        .locks(
            name -> {
              KubeLock.Builder lock = LeaseLock.newBuilder(client).name(name).identity(identity);
              // Events on the shard Leases only: members come and go with the replicas
              if (!name.startsWith(config.leaseName() + "-member-")) {
                lock.recordEvents(true).eventComponent("ippool-controller");
              }
              config.leaseNamespace().ifPresent(lock::namespace);
              return lock.build();
            })
        .config(
            b ->
                b.leaseDuration(config.leaseDuration())
                    .renewDeadline(config.renewDeadline())
                    .retryPeriod(config.retryPeriod())
                    .readinessGate(cache.synced()))
        .callbacks(
            shard ->
                LeaderCallbacks.of(
                    term -> startTerm(shard, term),
                    (term, reason) -> stopTerm(shard, term, reason)))
        .build();
  }

  /** The admission reviews, answered from this replica's caches. */
  AdmissionReviews admissionReviews() {
    return new AdmissionReviews(
        cache::poolsOnNetwork,
        cache::configsOnNetwork,
        config.serviceSubnet(),
        config.poolRenumbering(),
        config.poolBeforeNetwork() ? null : new NetworkAttachments(client)::missingForNewPool);
  }

  /**
   * Starts the informers and the candidacy.
   *
   * @throws IllegalStateException when the Lease cannot be set up, or the agents have no namespace
   *     (set POD_NAMESPACE, {@link ControllerConfig.Builder#leaseNamespace} or {@link
   *     ControllerConfig.Builder#agentNamespace})
   * @throws IllegalArgumentException when the timings break the elector's rules, naming each
   */
  public static IPPoolController start(ApiClient client, ControllerConfig config) {
    IPPoolController controller =
        new IPPoolController(
            Objects.requireNonNull(client, "client"), Objects.requireNonNull(config, "config"));
    controller.events.emit(
        "STARTED",
        "lease",
        controller.group != null ? controller.group.toString() : controller.elector.describe());
    controller.cache.synced().thenRun(() -> controller.events.emit("SYNCED"));
    controller.cache.start();
    if (controller.group != null) {
      controller.group.start();
    } else {
      controller.elector.start();
    }
    return controller;
  }

  private void startTerm(Term term) {
    startTerm(0, term);
  }

  private void startTerm(int shard, Term term) {
    stats.termsLed.incrementAndGet();
    if (routing.sharded()) {
      events.emit("LEADING", "shard", shard, "token", term.fencingToken());
      log.info(
          "{} leads shard {} (term {}); starting its controllers",
          term.identity(),
          shard,
          term.fencingToken());
    } else {
      events.emit("LEADING", "token", term.fencingToken());
      log.info(
          "{} leads (term {}); starting the controllers", term.identity(), term.fencingToken());
    }
    TermWork started =
        new TermWork(
            term, routing, shard, client, cache, config, events, objectEvents, stats, warnings);
    work.put(shard, started);
    started.start();
  }

  private void stopTerm(Term term, TermEnd reason) {
    stopTerm(0, term, reason);
  }

  private void stopTerm(int shard, Term term, TermEnd reason) {
    TermWork stopping = work.remove(shard);
    if (stopping != null) {
      stopping.stop();
    }
    if (routing.sharded()) {
      log.info(
          "{} stopped leading shard {} (term {}, {}); its controllers stopped",
          term.identity(),
          shard,
          term.fencingToken(),
          reason);
      events.emit(
          "STOPPED_LEADING", "shard", shard, "token", term.fencingToken(), "reason", reason);
    } else {
      log.info(
          "{} stopped leading (term {}, {}); controllers stopped",
          term.identity(),
          term.fencingToken(),
          reason);
      events.emit("STOPPED_LEADING", "token", term.fencingToken(), "reason", reason);
    }
  }

  /** This replica's identity in the Lease (in every Lease of the group, over shards). */
  public String identity() {
    return group != null ? group.identity() : elector.identity();
  }

  /** Whether this replica leads now: the Lease, or at least one shard. */
  public boolean isLeader() {
    return group != null ? !group.leading().isEmpty() : elector.isLeader();
  }

  /** The shards this replica leads now; {0} or none for a single leader. */
  public Set<Integer> leadingShards() {
    return group != null ? group.leading() : elector.isLeader() ? Set.of(0) : Set.of();
  }

  /** The shard group, or null for a single leader. */
  ShardGroup shardGroup() {
    return group;
  }

  /** The routing of keys to shards. */
  ShardRouting routing() {
    return routing;
  }

  /** Whether this replica reconciles the pool {@code key} now (it leads the pool's shard). */
  boolean ownsPool(String key) {
    return work.containsKey(routing.pool(key));
  }

  /** Whether this replica reconciles the config {@code key} now. */
  boolean ownsVmConfig(String key) {
    return work.containsKey(routing.vmConfig(key));
  }

  /** Whether every informer has synced (readiness). */
  public boolean isSynced() {
    return cache.hasSynced();
  }

  /** The electors (the Lease's, or every shard's), for their metrics. */
  List<LeaderElector> electors() {
    if (group == null) {
      return List.of(elector);
    }
    List<LeaderElector> all = new ArrayList<>();
    for (int i = 0; i < group.shardCount(); i++) {
      all.add(group.shard(i));
    }
    return all;
  }

  /** The elector's health (liveness); over shards, healthy while every shard's elector is. */
  public ControllerHealth health() {
    if (group == null) {
      ElectorStats stats = elector.stats();
      return new ControllerHealth(stats.healthy(), stats.status());
    }
    List<LeaderElector> sick =
        electors().stream().filter(e -> !e.stats().healthy()).collect(Collectors.toList());
    return sick.isEmpty()
        ? new ControllerHealth(true, group + " leading shards " + group.leading())
        : new ControllerHealth(
            false,
            sick.stream()
                .map(e -> e.describe() + ": " + e.stats().status())
                .collect(Collectors.joining("; ")));
  }

  /** Whether this replica leads, has no queued work and no reconcile running or waiting. */
  boolean idleLeader() {
    List<TermWork> current = List.copyOf(work.values());
    return !current.isEmpty() && isLeader() && current.stream().allMatch(TermWork::idle);
  }

  /** The EVENT line writer of this replica. */
  EventLog events() {
    return events;
  }

  ControllerStats stats() {
    return stats;
  }

  /** The informer cache, for the metrics. */
  ClusterCache cache() {
    return cache;
  }

  /** Steps down (the controllers stop first), releases the Lease and stops the informers. */
  @Override
  public void close() {
    events.emit("STOPPING");
    if (group != null) {
      group.close();
    } else {
      elector.close();
    }
    cache.close();
    objectEvents.close();
    log.info("controller {} closed: {}", identity(), stats);
    events.emit("STOPPED");
  }
}
