package dev.elector.dhcp.agent;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.DhcpServer;
import dev.elector.dhcp.server.PoolOptions;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.micrometer.ElectorMetrics;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader-elected DHCP agent of one IPPool. Every replica watches the pool and keeps its lease
 * cache filled (hot standby); the replicas elect one leader with a Lease in their own namespace,
 * one lock per pool; only the leader holds the server address and answers DHCP, from the moment its
 * write won the lock until the instant its term ends.
 *
 * <p>Candidacy starts only after the initial sync of the cache, so a replica can never lead with an
 * empty cache (the "no lease found" failure of the seed project).
 */
public final class DhcpAgent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DhcpAgent.class);

  private final AgentConfig config;
  private final AgentEvents events;
  private final PoolLeaseCache cache;
  private final PoolReporter reports;
  private final PoolWatcher watcher;
  private final LeaderDuty duty;
  private final LeaderElector elector;
  private final PrometheusMeterRegistry metrics;
  private final HealthServer health;

  private DhcpAgent(
      AgentConfig config,
      ApiClient client,
      PodEnvironment environment,
      AgentEvents events,
      MonotonicClock clock,
      ServerAddress.Commands commands)
      throws IOException {
    this.config = config;
    this.events = events;
    this.cache =
        new PoolLeaseCache(config.pool(), config.serverIp(), config.cidr(), this::onPool, clock);
    this.metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.reports = new PoolReporter(config.pool(), client, events);
    AgentDhcpListener listener =
        new AgentDhcpListener(
            events,
            clock,
            metrics,
            config.pool().toString(),
            (mac, ip) -> {
              cache.declined(mac, ip);
              reports.declined(mac, ip);
            });
    this.duty =
        new LeaderDuty(
            cache,
            target ->
                config.dryRun() || config.noDhcp() || config.nic().isEmpty()
                    ? ServerAddress.none()
                    : ServerAddress.onInterface(
                        config.nic().get(), target.serverIp(), target.cidr(), commands),
            (target, term) -> openServer(target, term, listener, clock),
            events);
    Duration requestTimeout =
        min(KubeLock.DEFAULT_REQUEST_TIMEOUT, config.renewDeadline().dividedBy(2));
    KubeLock.Builder lockBuilder =
        LeaseLock.newBuilder(client)
            .name(config.lockName())
            .environment(environment)
            .requestTimeout(requestTimeout)
            .recordEvents(true)
            .eventComponent("vm-dhcp-agent");
    config.identity().ifPresent(lockBuilder::identity);
    // --no-leader-election: a lock no other process sees, so this one serves at once
    dev.elector.lock.LeaderLock lock =
        config.leaderElection()
            ? lockBuilder.build()
            : InMemoryLockStore.create(config.lockName())
                .lockFor(config.identity().orElseGet(environment::defaultIdentity));
    this.watcher = new PoolWatcher(client, cache);
    this.elector =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .lock(lock)
                .leaseDuration(config.leaseDuration())
                .renewDeadline(config.renewDeadline())
                .retryPeriod(config.retryPeriod())
                .readinessGate(cache.initialSync())
                .callbacks(
                    new LeaderCallbacks() {
                      @Override
                      public void onStartedLeading(Term term) {
                        config.pod().ifPresent(reports::leading);
                        duty.started(term);
                      }

                      @Override
                      public void onStoppedLeading(Term term, TermEnd reason) {
                        duty.stopped(term, reason);
                      }

                      @Override
                      public void onNewLeader(String identity) {
                        events.emit("leader", "identity", identity);
                      }
                    })
                .listener(
                    new ElectorListener() {
                      @Override
                      public void onTermStarted(Term term) {
                        events.emit(
                            "leading", "identity", term.identity(), "token", term.fencingToken());
                      }

                      @Override
                      public void onTermEnded(Term term, TermEnd reason) {
                        events.emit(
                            "stopped",
                            "identity",
                            term.identity(),
                            "token",
                            term.fencingToken(),
                            "reason",
                            reason);
                      }
                    })
                .build());
    ElectorMetrics.of(elector).bindTo(metrics);
    this.health =
        HealthServer.start(
            config.healthAddress(),
            this::livenessProblem,
            () -> elector.stats().status(),
            cache::notServingReason,
            config.exposeLeases() ? this::leasesJson : null,
            metrics::scrape);
  }

  /**
   * Builds and starts an agent: health endpoints, the pool watch, then candidacy once the initial
   * sync is done.
   *
   * @throws IOException if the health address cannot be bound
   * @throws IllegalStateException if the lock cannot be built (no namespace, bad name), naming why
   * @throws IllegalArgumentException if the timings break the elector's rules, naming each
   */
  public static DhcpAgent start(
      AgentConfig config, ApiClient client, PodEnvironment environment, PrintStream eventsOut)
      throws IOException {
    return start(config, client, environment, eventsOut, ServerAddress.Commands.SYSTEM);
  }

  static DhcpAgent start(
      AgentConfig config,
      ApiClient client,
      PodEnvironment environment,
      PrintStream eventsOut,
      ServerAddress.Commands commands)
      throws IOException {
    AgentEvents events =
        new AgentEvents(eventsOut, Clock.systemUTC(), MonotonicClock.system(), true);
    DhcpAgent agent =
        new DhcpAgent(config, client, environment, events, MonotonicClock.system(), commands);
    events.emit(
        "started",
        "identity",
        agent.elector.identity(),
        "pool",
        config.pool(),
        "lock",
        config.lockName(),
        "health",
        agent.health.port());
    log.info(
        "DHCP agent for IPPool {} as {} on {}",
        config.pool(),
        agent.elector.identity(),
        agent.elector.describe());
    agent
        .cache
        .initialSync()
        .thenRun(
            () ->
                agent.events.emit(
                    "synced",
                    "rv",
                    agent.cache.snapshot().map(PoolSnapshot::resourceVersion).orElse("-"),
                    "leases",
                    agent.cache.snapshot().map(s -> s.leases().size()).orElse(0)));
    agent.watcher.start();
    agent.elector.start();
    return agent;
  }

  /** The lease cache, read-only. */
  public PoolLeaseCache cache() {
    return cache;
  }

  /** Whether this replica leads now. */
  public boolean isLeader() {
    return elector.isLeader();
  }

  /** The elector's counters. */
  ElectorStats electorStats() {
    return elector.stats();
  }

  /** Failed attempts to list or watch the pool so far. */
  long poolFailures() {
    return watcher.failures();
  }

  /** The health endpoints' port. */
  public int healthPort() {
    return health.port();
  }

  private void onPool(PoolSnapshot snapshot) {
    events.emit(
        "pool",
        "rv",
        snapshot.resourceVersion(),
        "leases",
        snapshot.leases().size(),
        "paused",
        snapshot.paused(),
        "problems",
        snapshot.problems().size());
    duty.poolChanged();
  }

  private DhcpServer openServer(
      LeaderDuty.Target target, Term term, AgentDhcpListener listener, MonotonicClock clock)
      throws IOException {
    DhcpServer server =
        DhcpServer.builder()
            .engine(new DhcpEngine(cache))
            .bindAddress(config.dryRun() ? Ipv4Address.ANY : target.serverIp())
            .port(config.dhcpPort())
            .listener(listener)
            .clock(clock)
            .servingGate(() -> term.isActive() && cache.notServingReason().isEmpty())
            .threadName("dhcp-server-term-" + term.fencingToken())
            .build();
    if (config.noDhcp()) {
      return server; // never started: no socket, no answers (--no-dhcp)
    }
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    server.setServing(true);
    return server;
  }

  private Optional<String> livenessProblem() {
    ElectorStats stats = elector.stats();
    if (!stats.healthy()) {
      return Optional.of(stats.status());
    }
    return duty.problem();
  }

  private String leasesJson() {
    Map<String, Object> dump = new LinkedHashMap<>();
    dump.put("pool", config.pool().toString());
    dump.put("identity", elector.identity());
    dump.put("leader", elector.isLeader());
    dump.put("observedLeader", elector.observedLeader().orElse(null));
    dump.put("serving", duty.serving());
    dump.put("notServingReason", cache.notServingReason().orElse(null));
    cache
        .snapshot()
        .ifPresent(
            s -> {
              dump.put("resourceVersion", s.resourceVersion());
              Map<String, String> leases = new LinkedHashMap<>();
              s.leases().forEach((mac, ip) -> leases.put(mac.toString(), ip.toString()));
              dump.put("leases", leases);
              PoolOptions o = s.options();
              Map<String, Object> options = new LinkedHashMap<>();
              options.put("serverIp", o.serverIp().toString());
              options.put("cidr", o.cidr().toString());
              options.put("router", o.router().map(String::valueOf).orElse(null));
              options.put("dns", o.dns().stream().map(String::valueOf).toList());
              options.put("domainName", o.domainName().orElse(null));
              options.put("domainSearch", o.domainSearch());
              options.put("ntp", o.ntp().stream().map(String::valueOf).toList());
              options.put("leaseTimeSeconds", o.leaseTime().getSeconds());
              dump.put("options", options);
              dump.put("problems", s.problems());
            });
    return GSON.toJson(dump) + "\n";
  }

  private static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeNulls().create();

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Stops leading (address removed, lock released), then the watch and the endpoints. */
  @Override
  public void close() {
    elector.close();
    duty.close();
    watcher.close();
    reports.close();
    health.close();
    events.emit("closed", "identity", elector.identity());
  }

  @Override
  public String toString() {
    return "DhcpAgent{" + config.pool() + " as " + elector.identity() + "}";
  }
}
