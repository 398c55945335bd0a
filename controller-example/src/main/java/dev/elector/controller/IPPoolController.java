package dev.elector.controller;

import dev.elector.ElectorConfig;
import dev.elector.ElectorHealth;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import io.kubernetes.client.openapi.ApiClient;
import java.util.Objects;
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
  private final LeaderElector elector;
  private final EventLog events;
  private final ObjectEvents objectEvents;
  private volatile TermWork work;

  private IPPoolController(ApiClient client, ControllerConfig config) {
    this.client = client;
    this.config = config;
    this.cache =
        new ClusterCache(
            client,
            new ClusterCache.Sink() {
              @Override
              public void pool(String key) {
                TermWork current = work;
                if (current != null) {
                  current.pool(key);
                }
              }

              @Override
              public void vmConfig(String key) {
                TermWork current = work;
                if (current != null) {
                  current.vmConfig(key);
                }
              }

              @Override
              public void vm(String key) {
                TermWork current = work;
                if (current != null) {
                  current.vm(key);
                }
              }
            });
    LeaseLock.Builder lock =
        LeaseLock.newBuilder()
            .apiClient(client)
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

  /** The admission reviews, answered from this replica's caches. */
  AdmissionReviews admissionReviews() {
    return new AdmissionReviews(
        cache::poolsOnNetwork, cache::configsOnNetwork, config.serviceSubnet());
  }

  /**
   * Starts the informers and the candidacy.
   *
   * @throws IllegalStateException when the Lease cannot be set up (no namespace: set POD_NAMESPACE
   *     or {@link ControllerConfig.Builder#leaseNamespace})
   * @throws dev.elector.ElectorConfigException when the timings break the elector's rules
   */
  public static IPPoolController start(ApiClient client, ControllerConfig config) {
    IPPoolController controller =
        new IPPoolController(
            Objects.requireNonNull(client, "client"), Objects.requireNonNull(config, "config"));
    controller.events.emit("STARTED", "lease", controller.elector.describe());
    controller.cache.synced().thenRun(() -> controller.events.emit("SYNCED"));
    controller.cache.start();
    controller.elector.start();
    return controller;
  }

  private void startTerm(Term term) {
    stats.termsLed.incrementAndGet();
    events.emit("LEADING", "token", term.fencingToken());
    log.info("{} leads (term {}); starting the controllers", term.identity(), term.fencingToken());
    TermWork started =
        new TermWork(term, client, cache, config, events, objectEvents, stats, warnings);
    work = started;
    started.start();
  }

  private void stopTerm(Term term, TermEnd reason) {
    TermWork stopping = work;
    work = null;
    if (stopping != null) {
      stopping.stop();
    }
    log.info(
        "{} stopped leading (term {}, {}); controllers stopped",
        term.identity(),
        term.fencingToken(),
        reason);
    events.emit("STOPPED_LEADING", "token", term.fencingToken(), "reason", reason);
  }

  /** This replica's identity in the Lease. */
  public String identity() {
    return elector.identity();
  }

  /** Whether this replica leads now. */
  public boolean isLeader() {
    return elector.isLeader();
  }

  /** Whether every informer has synced (readiness). */
  public boolean isSynced() {
    return cache.hasSynced();
  }

  /** The elector, for its metrics. */
  LeaderElector elector() {
    return elector;
  }

  /** The elector's health (liveness). */
  public ElectorHealth health() {
    return elector.health();
  }

  /** Whether this replica leads, has no queued work and no reconcile running or waiting. */
  boolean idleLeader() {
    TermWork current = work;
    return current != null && elector.isLeader() && current.idle();
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
    elector.close();
    cache.close();
    objectEvents.close();
    log.info("controller {} closed: {}", identity(), stats);
    events.emit("STOPPED");
  }
}
