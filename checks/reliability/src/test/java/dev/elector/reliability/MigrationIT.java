package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.TermEnd;
import dev.elector.bench.Candidate;
import dev.elector.bench.ClientJavaCandidate;
import dev.elector.bench.ElectorCandidate;
import dev.elector.bench.Fabric8Candidate;
import dev.elector.bench.Recorder;
import dev.elector.bench.Timings;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.fabric8.Fabric8ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.time.MonotonicClock;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Rolling a Deployment from another elector to Elector on the same lock: candidates of
 * client-java-extended's and fabric8's {@code LeaderElector}, of Elector on client-java and on
 * fabric8, and (on the Lease) of client-go contend on one lock while the leader is, in turn,
 * crashed (no release) or terminated gracefully (release), and a new candidate of the same
 * implementation starts in its place, as a Deployment's replacement pod would.
 *
 * <p>Every term goes to one {@link LeadershipTimeline}. An Elector term is what its listener
 * reports. A term of another library starts at its start callback and ends at the earliest of its
 * stop callback, its crash, and the start of its graceful termination: an application stops its
 * work on SIGTERM, before the library releases (client-java-extended, fabric8 and client-go all
 * release before they call their stop callback).
 *
 * <p>Fails on any overlap involving an Elector candidate, on Elector tokens that do not increase,
 * on fewer than {@code elector.migration.changes} leader changes (20 in CI), and on an
 * implementation that never led. An overlap of two other libraries is reported, not failed on.
 * Prints the handover time per direction (from and to implementation, crash or graceful). Timings:
 * lease 3 s, renew 2 s, retry 0.5 s, as the other reliability scenarios.
 */
@KubeTest
class MigrationIT {
  private static final Timings TIMINGS = Timings.SCALED;
  private static final String LOCK = Cohort.LOCK;
  private static final Path GO_WORK = Path.of("target", "migration-gocandidates");
  private static final Path SHIPPED_CONFIGMAP_RBAC =
      Path.of("..", "..", "deploy", "configmap", "rbac.yaml");

  /** The implementations that share the lock. */
  enum Impl {
    CLIENT_JAVA_EXTENDED("client-java-extended 25.0.0", "cjx", false),
    FABRIC8("fabric8 8.0.0", "f8", false),
    ELECTOR("Elector (client-java)", "el", true),
    ELECTOR_FABRIC8("Elector (fabric8)", "ef", true),
    CLIENT_GO("client-go v0.37.2", "go", false);

    final String label;
    final String key;
    final boolean elector;

    Impl(String label, String key, boolean elector) {
      this.label = label;
      this.key = key;
      this.elector = elector;
    }
  }

  enum Kind {
    LEASE,
    CONFIGMAP
  }

  enum Stop {
    CRASH,
    GRACEFUL
  }

  /** One leader change: who stopped how, who led next, and after how long. */
  record Handover(Impl from, Impl to, Stop how, long nanos) {}

  /**
   * The Lease, shared by all five, and the ConfigMap, shared by the four that still have a
   * ConfigMap lock (client-go dropped its own; client-java-extended and fabric8 8.0.0 have a {@code
   * ConfigMapLock}), side by side: two independent elections in one namespace, run at the same time
   * to keep CI short. On the ConfigMap, fabric8 leads first, as the Deployment being rolled away
   * from: its ConfigMapLock cannot read client-go's record, so it cannot lead again once another
   * library wrote the ConfigMap.
   */
  @Test
  void leaseAndConfigMapSharedWithOtherElectors(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    ExecutorService both = Executors.newFixedThreadPool(2);
    try {
      Future<?> lease =
          both.submit(
              () -> {
                new Migration(cluster, namespace, Kind.LEASE, List.of(Impl.values()), null).run();
                return null;
              });
      Future<?> configMap =
          both.submit(
              () -> {
                new Migration(
                        cluster,
                        namespace,
                        Kind.CONFIGMAP,
                        List.of(
                            Impl.CLIENT_JAVA_EXTENDED,
                            Impl.FABRIC8,
                            Impl.ELECTOR,
                            Impl.ELECTOR_FABRIC8),
                        Impl.FABRIC8)
                    .run();
                return null;
              });
      Throwable failure = null;
      for (Future<?> f : List.of(lease, configMap)) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (failure == null) {
            failure = e.getCause();
          } else {
            failure.addSuppressed(e.getCause());
          }
        }
      }
      if (failure instanceof Error error) {
        throw error;
      }
      if (failure instanceof Exception exception) {
        throw exception;
      }
    } finally {
      both.shutdownNow();
    }
  }

  /**
   * Ends a foreign library's terms on the timeline: at its stop callback, or earlier, when the test
   * crashes or terminates it.
   */
  private static final class TimelineRecorder extends Recorder {
    private final LeadershipTimeline timeline;
    private final Set<String> open = new HashSet<>();

    TimelineRecorder(LeadershipTimeline timeline) {
      this.timeline = timeline;
    }

    @Override
    public synchronized void started(String identity) {
      super.started(identity);
      open.add(identity);
      timeline.started(identity, -1, System.nanoTime());
    }

    @Override
    public synchronized void stopped(String identity) {
      super.stopped(identity);
      endNow(identity);
    }

    synchronized void endNow(String identity) {
      if (open.remove(identity)) {
        timeline.ended(identity, TermEnd.CLOSED, System.nanoTime());
      }
    }
  }

  /** One candidate process, of any implementation. */
  private final class Contender {
    final Impl impl;
    final String name;
    final Candidate candidate;
    final GoCandidate go;
    final KubernetesClient fabric8;
    final TimelineRecorder recorder;

    Contender(
        Impl impl,
        String name,
        Candidate candidate,
        GoCandidate go,
        KubernetesClient fabric8,
        TimelineRecorder recorder) {
      this.impl = impl;
      this.name = name;
      this.candidate = candidate;
      this.go = go;
      this.fabric8 = fabric8;
      this.recorder = recorder;
    }

    void stop(Stop how) {
      if (go != null) {
        if (how == Stop.CRASH) {
          go.kill();
        } else {
          go.terminate();
        }
        return;
      }
      if (!impl.elector) {
        recorder.endNow(name); // the process dies, or the application stops its work on SIGTERM
      }
      if (how == Stop.CRASH) {
        candidate.crash();
      } else {
        candidate.closeGracefully();
      }
    }

    void release() {
      if (candidate != null) {
        candidate.shutdown();
      }
      if (fabric8 != null) {
        fabric8.close();
      }
    }
  }

  private final class Migration {
    private final KubeCluster cluster;
    private final KubeNamespace namespace;
    private final Kind kind;
    private final List<Impl> impls;
    private final Impl first;
    private final Cohort cohort;
    private final LeadershipTimeline timeline;
    private final TimelineRecorder recorder;
    private final Recorder electorCallbacks = new Recorder();
    private final Map<Impl, KubeIdentity> identities = new EnumMap<>(Impl.class);
    private final Map<Impl, Integer> incarnations = new EnumMap<>(Impl.class);
    private final Map<Impl, Integer> stops = new EnumMap<>(Impl.class);
    private final Map<String, Impl> implOf = new HashMap<>();
    private final Map<Impl, Contender> live = new EnumMap<>(Impl.class);
    private final List<Contender> retired = new ArrayList<>();
    private final List<Handover> handovers = new ArrayList<>();
    private Path goBinary;
    private int fabric8Died;

    /**
     * @param first an implementation that leads alone before the others start (the one the
     *     Deployment runs before the rollout), or null
     */
    Migration(
        KubeCluster cluster, KubeNamespace namespace, Kind kind, List<Impl> impls, Impl first) {
      this.first = first;
      this.cluster = cluster;
      this.namespace = namespace;
      this.kind = kind;
      this.impls = impls;
      this.cohort = new Cohort(cluster, namespace);
      this.timeline = cohort.timeline;
      this.recorder = new TimelineRecorder(timeline);
    }

    void run() throws Exception {
      int changes = Integer.getInteger("elector.migration.changes", 20);
      String scenario = "migration-" + kind.name().toLowerCase(Locale.ROOT);
      long begin = System.nanoTime();
      long deadline = begin + Duration.ofSeconds(30L + 8L * changes).toNanos();
      try {
        if (first != null) {
          startNew(first);
          awaitOneLeader(Duration.ofSeconds(30));
        }
        for (Impl impl : impls) {
          if (impl != first) {
            startNew(impl);
          }
        }
        Contender leader = awaitOneLeader(Duration.ofSeconds(30));
        while (handovers.size() < changes || !notYetLed().isEmpty()) {
          assertTrue(
              System.nanoTime() < deadline,
              scenario
                  + ": "
                  + handovers.size()
                  + " changes, and never led: "
                  + notYetLed()
                  + "; terms: "
                  + timeline.terms());
          replaceDeadFabric8(leader);
          Stop how = nextStop(leader.impl);
          // Every other change is contended by every implementation; in the others one follower
          // is left (the rest leave until the next leader is elected), so that the directions
          // into the slower implementations are measured too.
          List<Impl> heldBack = new ArrayList<>();
          Optional<Impl> target =
              handovers.size() % 2 == 1 ? target(leader.impl, how) : Optional.empty();
          if (target.isPresent()) {
            for (Contender follower : List.copyOf(live.values())) {
              if (follower != leader && follower.impl != target.get()) {
                follower.stop(Stop.GRACEFUL);
                retire(follower);
                heldBack.add(follower.impl);
              }
            }
          }
          long stoppedAt = System.nanoTime();
          leader.stop(how);
          retire(leader);
          if (heldBack.isEmpty()) {
            startNew(leader.impl); // the replacement pod joins at once
          } else {
            heldBack.add(leader.impl);
          }
          LeadershipTimeline.Interval next = awaitTermAfter(stoppedAt, Duration.ofSeconds(20));
          Impl to = implOf.get(next.candidate());
          handovers.add(new Handover(leader.impl, to, how, next.startNanos() - stoppedAt));
          for (Impl impl : heldBack) {
            startNew(impl);
          }
          closeRetired();
          leader = awaitOneLeader(Duration.ofSeconds(20));
        }
      } finally {
        for (Contender c : List.copyOf(live.values())) {
          c.stop(Stop.GRACEFUL);
          retire(c);
        }
        closeRetired();
        cohort.goCandidates().forEach(GoCandidate::close); // each stopped already; closes the rest
      }
      Duration length = Duration.ofNanos(System.nanoTime() - begin);
      report(scenario, length);
      check(scenario, changes);
    }

    private Set<Impl> notYetLed() {
      Set<Impl> waiting = EnumSet.noneOf(Impl.class);
      waiting.addAll(impls);
      timeline.terms().forEach(t -> waiting.remove(implOf.get(t.candidate())));
      return waiting;
    }

    /**
     * The follower to leave alone with the leader: one that has not led yet, else the one whose
     * direction from {@code from} was measured least often, Elector first among equals (the
     * direction of a migration).
     */
    private Optional<Impl> target(Impl from, Stop how) {
      Set<Impl> waiting = notYetLed();
      return impls.stream()
          .filter(i -> i != from && live.containsKey(i) && canLead(i))
          // fabric8 cannot read the record client-java-extended's release leaves (see above)
          .filter(
              i ->
                  !(i == Impl.FABRIC8 && from == Impl.CLIENT_JAVA_EXTENDED && how == Stop.GRACEFUL))
          .min(
              java.util.Comparator.<Impl>comparingInt(i -> waiting.contains(i) ? 0 : 1)
                  .thenComparingLong(
                      i ->
                          handovers.stream()
                              .filter(h -> h.from() == from && h.to() == i && h.how() == how)
                              .count())
                  .thenComparingInt(i -> i.elector ? 0 : 1)
                  .thenComparingInt(i -> (i.ordinal() + handovers.size()) % Impl.values().length));
    }

    /**
     * fabric8's ConfigMapLock writes and reads its own record ({@code leaseDuration}, not
     * client-go's {@code leaseDurationSeconds}): once another library has written the ConfigMap, a
     * fabric8 candidate fails to read it and never leads again.
     */
    private boolean canLead(Impl impl) {
      return !(kind == Kind.CONFIGMAP
          && impl == Impl.FABRIC8
          && timeline.terms().stream().anyMatch(t -> implOf.get(t.candidate()) != Impl.FABRIC8));
    }

    /**
     * fabric8's elector ends for good, without a callback, when it reads a Lease without
     * acquireTime, which client-java-extended's release leaves: such a candidate is replaced, as a
     * liveness probe would restart its pod, and counted.
     */
    private void replaceDeadFabric8(Contender leader) throws Exception {
      Contender f8 = live.get(Impl.FABRIC8);
      if (f8 != null && f8 != leader && !((Fabric8Candidate) f8.candidate).running()) {
        fabric8Died++;
        retire(f8);
        startNew(Impl.FABRIC8);
      }
    }

    /**
     * Each implementation's leaders are crashed and terminated in turn, starting the other way
     * round on the ConfigMap: fabric8 leads once there, crashed on the Lease, terminated there.
     */
    private Stop nextStop(Impl impl) {
      int n = stops.merge(impl, 1, Integer::sum) + (kind == Kind.CONFIGMAP ? 1 : 0);
      return (n + impl.ordinal()) % 2 == 0 ? Stop.CRASH : Stop.GRACEFUL;
    }

    private void retire(Contender c) {
      live.remove(c.impl, c);
      retired.add(c);
    }

    private void closeRetired() {
      retired.forEach(Contender::release);
      retired.clear();
    }

    private KubeIdentity identity(Impl impl) throws Exception {
      KubeIdentity identity = identities.get(impl);
      if (identity == null) {
        identity =
            cluster.newIdentity(namespace, impl.key + "-" + kind.name().toLowerCase(Locale.ROOT));
        cluster.grant(identity, namespace, rules(impl));
        identities.put(impl, identity);
      }
      return identity;
    }

    /**
     * The least each implementation needs, as docs/migration.md lists it: Elector the shipped Role;
     * client-java-extended get, update and create; fabric8 get, patch and create.
     */
    private List<V1PolicyRule> rules(Impl impl) throws Exception {
      String group = kind == Kind.LEASE ? "coordination.k8s.io" : "";
      String resource = kind == Kind.LEASE ? "leases" : "configmaps";
      List<String> byName =
          switch (impl) {
            case CLIENT_JAVA_EXTENDED -> List.of("get", "update");
            case FABRIC8 -> List.of("get", "patch");
            default -> null;
          };
      if (byName == null) {
        return KubeCluster.roleRules(
            kind == Kind.LEASE ? Cohort.SHIPPED_LEASE_RBAC : SHIPPED_CONFIGMAP_RBAC);
      }
      return List.of(
          new V1PolicyRule()
              .apiGroups(List.of(group))
              .resources(List.of(resource))
              .resourceNames(List.of(LOCK))
              .verbs(byName),
          new V1PolicyRule()
              .apiGroups(List.of(group))
              .resources(List.of(resource))
              .verbs(List.of("create")));
    }

    private void startNew(Impl impl) throws Exception {
      int n = incarnations.merge(impl, 1, Integer::sum);
      String name = impl.key + "-" + n;
      implOf.put(name, impl);
      String ns = namespace.name();
      Contender contender;
      if (impl == Impl.CLIENT_GO) {
        if (goBinary == null) {
          // A copy of our own: the shared cache keeps one build and deletes the others, and a
          // build with other sources may run while this test restarts candidates.
          Files.createDirectories(GO_WORK);
          goBinary =
              Files.copy(
                  GoCandidate.binary(),
                  GO_WORK.toAbsolutePath().resolve("elector-gocandidate"),
                  StandardCopyOption.REPLACE_EXISTING,
                  StandardCopyOption.COPY_ATTRIBUTES);
        }
        GoCandidate go = cohort.addGo(name, goBinary, GO_WORK, true);
        contender = new Contender(impl, name, null, go, null, null);
      } else {
        String token = identity(impl).token();
        KubernetesClient fabric8 =
            impl == Impl.FABRIC8 || impl == Impl.ELECTOR_FABRIC8
                ? new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(cluster.kubeconfigYaml(token)))
                    .build()
                : null;
        ApiClient client = fabric8 == null ? cluster.clientWithToken(token) : null;
        boolean lease = kind == Kind.LEASE;
        Candidate candidate =
            switch (impl) {
              case CLIENT_JAVA_EXTENDED ->
                  new ClientJavaCandidate(
                      lease
                          ? new io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock(
                              ns, LOCK, name, client)
                          : new io.kubernetes.client.extended.leaderelection.resourcelock
                              .ConfigMapLock(ns, LOCK, name, client),
                      TIMINGS,
                      recorder);
              case FABRIC8 ->
                  new Fabric8Candidate(
                      fabric8,
                      LOCK,
                      lease
                          ? new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                              .LeaseLock(ns, LOCK, name)
                          : new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                              .ConfigMapLock(ns, LOCK, name),
                      TIMINGS,
                      recorder);
              case ELECTOR ->
                  elector(
                      lease
                          ? LeaseLock.newBuilder(client)
                              .namespace(ns)
                              .name(LOCK)
                              .identity(name)
                              .requestTimeout(TIMINGS.renew().dividedBy(2))
                              .build()
                          : ConfigMapLock.newBuilder(client)
                              .namespace(ns)
                              .name(LOCK)
                              .identity(name)
                              .requestTimeout(TIMINGS.renew().dividedBy(2))
                              .build(),
                      name);
              case ELECTOR_FABRIC8 ->
                  elector(
                      lease
                          ? Fabric8LeaseLock.newBuilder(fabric8)
                              .namespace(ns)
                              .name(LOCK)
                              .identity(name)
                              .requestTimeout(TIMINGS.renew().dividedBy(2))
                              .build()
                          : Fabric8ConfigMapLock.newBuilder(fabric8)
                              .namespace(ns)
                              .name(LOCK)
                              .identity(name)
                              .requestTimeout(TIMINGS.renew().dividedBy(2))
                              .build(),
                      name);
              case CLIENT_GO -> throw new AssertionError(impl);
            };
        candidate.start();
        contender = new Contender(impl, name, candidate, null, fabric8, recorder);
      }
      live.put(impl, contender);
    }

    private Candidate elector(KubeLock lock, String name) {
      return new ElectorCandidate(
          lock, TIMINGS, true, electorCallbacks, timeline.listenerFor(name));
    }

    /** Waits until exactly one term is open, of a live candidate. */
    private Contender awaitOneLeader(Duration limit) throws InterruptedException {
      return Waiting.until(
          limit,
          Duration.ofMillis(5),
          () -> {
            List<LeadershipTimeline.Interval> open = openTerms();
            if (open.size() != 1) {
              return Optional.empty();
            }
            Contender c = live.get(implOf.get(open.get(0).candidate()));
            return c != null && c.name.equals(open.get(0).candidate())
                ? Optional.of(c)
                : Optional.empty();
          },
          () ->
              "not one leader within "
                  + limit
                  + ": open "
                  + openTerms()
                  + "; terms: "
                  + timeline.terms());
    }

    private List<LeadershipTimeline.Interval> openTerms() {
      return timeline.terms().stream().filter(LeadershipTimeline.Interval::open).toList();
    }

    private LeadershipTimeline.Interval awaitTermAfter(long fromNanos, Duration limit)
        throws InterruptedException {
      return Waiting.until(
          limit,
          Duration.ofMillis(2),
          () -> timeline.terms().stream().filter(t -> t.startNanos() - fromNanos > 0).findFirst(),
          () -> "no new leader within " + limit + " of a stop; terms: " + timeline.terms());
    }

    private void report(String scenario, Duration length) {
      Map<String, List<Long>> byDirection = new TreeMap<>();
      for (Handover h : handovers) {
        byDirection
            .computeIfAbsent(
                String.format(
                    Locale.ROOT,
                    "%-8s | %-28s | %-28s",
                    h.how().name().toLowerCase(Locale.ROOT),
                    h.from().label,
                    h.to().label),
                k -> new ArrayList<>())
            .add(h.nanos());
      }
      StringBuilder table =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%n%-8s | %-28s | %-28s | %5s | %10s | %10s%n",
                  "stop",
                  "from",
                  "to",
                  "count",
                  "median ms",
                  "max ms"));
      byDirection.forEach(
          (key, values) -> {
            List<Long> sorted = values.stream().sorted().toList();
            table.append(
                String.format(
                    Locale.ROOT,
                    "%s | %5d | %10d | %10d%n",
                    key,
                    sorted.size(),
                    median(sorted) / 1_000_000,
                    sorted.get(sorted.size() - 1) / 1_000_000));
          });
      System.out.println(table);
      Figures.record(scenario, "length", Figures.millis(length));
      Figures.record(scenario, "leader-changes", handovers.size());
      Map<Impl, Long> terms = new EnumMap<>(Impl.class);
      timeline.terms().forEach(t -> terms.merge(implOf.get(t.candidate()), 1L, Long::sum));
      Figures.record(scenario, "terms-per-implementation", terms);
      Figures.record(
          scenario, "fabric8-electors-ended-by-a-record-without-acquireTime", fabric8Died);
      for (Stop how : Stop.values()) {
        Map<String, String> medians = new LinkedHashMap<>();
        for (Impl from : impls) {
          List<Long> sorted =
              handovers.stream()
                  .filter(h -> h.how() == how && h.from() == from)
                  .map(Handover::nanos)
                  .sorted()
                  .toList();
          if (!sorted.isEmpty()) {
            medians.put(from.key, median(sorted) / 1_000_000 + " ms (n=" + sorted.size() + ")");
          }
        }
        Figures.record(
            scenario, "handover-median-from-" + how.name().toLowerCase(Locale.ROOT), medians);
      }
      for (Impl to : impls) {
        List<Long> sorted =
            handovers.stream().filter(h -> h.to() == to).map(Handover::nanos).sorted().toList();
        if (!sorted.isEmpty()) {
          Figures.record(
              scenario,
              "handover-median-to-" + to.key,
              median(sorted) / 1_000_000 + " ms (n=" + sorted.size() + ")");
        }
      }
      byDirection.forEach(
          (key, values) ->
              Figures.record(
                  scenario,
                  "handover",
                  key.replaceAll(" +", " ")
                      + " | n="
                      + values.size()
                      + " median "
                      + median(values.stream().sorted().toList()) / 1_000_000
                      + " ms"));
    }

    private void check(String scenario, int changes) {
      List<LeadershipTimeline.Interval> terms = timeline.terms();
      List<String> electorOverlaps = new ArrayList<>();
      List<String> foreignOverlaps = new ArrayList<>();
      for (int i = 0; i < terms.size(); i++) {
        for (int j = i + 1; j < terms.size(); j++) {
          LeadershipTimeline.Interval a = terms.get(i);
          LeadershipTimeline.Interval b = terms.get(j);
          long overlap =
              Math.min(a.endNanos(), b.endNanos()) - Math.max(a.startNanos(), b.startNanos());
          if (overlap <= 0) {
            continue;
          }
          String pair = a + " and " + b + ": " + Figures.millis(Duration.ofNanos(overlap));
          if (implOf.get(a.candidate()).elector || implOf.get(b.candidate()).elector) {
            electorOverlaps.add(pair);
          } else {
            foreignOverlaps.add(pair);
          }
        }
      }
      Figures.record(scenario, "overlaps-involving-elector", electorOverlaps.size());
      Figures.record(
          scenario, "overlaps-of-other-libraries", foreignOverlaps.size() + " " + foreignOverlaps);
      assertTrue(electorOverlaps.isEmpty(), "two leaders at once: " + electorOverlaps);
      // Fencing tokens: Elector's terms only; the other libraries have none.
      LeadershipTimeline electorOnly = new LeadershipTimeline(MonotonicClock.system());
      for (LeadershipTimeline.Interval t : terms) {
        if (implOf.get(t.candidate()).elector) {
          electorOnly.started(t.candidate(), t.token(), t.startNanos());
          electorOnly.ended(t.candidate(), t.reason(), t.endNanos());
        }
      }
      electorOnly.assertNoOverlap();
      assertTrue(
          handovers.size() >= changes, handovers.size() + " leader changes, wanted " + changes);
      assertTrue(notYetLed().isEmpty(), "never led: " + notYetLed());
    }
  }

  private static long median(List<Long> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
