package dev.elector.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.elector.fabric8.Fabric8LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scenario benchmarks: failover, handover, API load and scale, run one implementation at a
 * time.
 */
final class Scenarios {
  private static final Logger log = LoggerFactory.getLogger(Scenarios.class);
  private static final AtomicInteger LOCKS = new AtomicInteger();

  /** Time from a change to the next leader's start callback, per repetition. */
  record Takeover(
      Impl impl,
      Timings timings,
      int candidates,
      List<Double> fromStopMs,
      List<Double> fromLastRenewMs,
      int repetitions,
      int missing,
      List<Recorder.Event> sampleTimeline,
      long sampleChangeNanos,
      List<double[]> breakdowns) {}

  /**
   * The parts of one graceful handover, in ms, from the old and new leaders' traced locks: close
   * call to release write issued, release write, release write issued to the new leader's watch
   * event showing the lock released, that event to its acquire write issued, the acquire write, and
   * its end to the start callback. NaN where a part was not seen.
   */
  static final String[] HANDOVER_PARTS = {
    "close → release issued",
    "release write",
    "release issued → follower's watch event",
    "watch event → acquire issued (decision)",
    "acquire write",
    "acquire written → start callback"
  };

  /** Steady-state requests per second reaching the server, by verb. */
  record Load(
      Impl impl,
      Timings timings,
      int candidates,
      double windowSeconds,
      Map<String, Double> perSecondByVerb) {
    double total() {
      return perSecondByVerb.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /** n electors on n locks in one JVM; requests per second on Leases over the window. */
  record Scale(
      Impl impl,
      int electors,
      int leading,
      int onTime,
      double maxGapMs,
      int addedThreads,
      int peakAddedThreads,
      double heapMb,
      double cpuCores,
      double acquireSeconds,
      double requestsPerSecond,
      String note) {}

  /** At most this many client-go elections at once: each candidate is a process. */
  private static final int CLIENT_GO_ELECTIONS_AT_ONCE = 5;

  private final Cluster cluster;
  private final String namespace;
  private Path goBinary;

  Scenarios(Cluster cluster, String namespace) {
    this.cluster = cluster;
    this.namespace = namespace;
  }

  private ExecutorService boundedIo;

  /**
   * The 4 shared I/O threads of ELECTOR_BOUNDED and ELECTOR_SHARED, created on first use, ended by
   * each scale and load run.
   */
  private synchronized ExecutorService boundedIo() {
    if (boundedIo == null) {
      AtomicInteger count = new AtomicInteger();
      boundedIo =
          Executors.newFixedThreadPool(
              4,
              runnable -> {
                Thread thread = new Thread(runnable, "bench-elector-io-" + count.incrementAndGet());
                thread.setDaemon(true);
                return thread;
              });
    }
    return boundedIo;
  }

  private synchronized void endBoundedIo() {
    if (boundedIo != null) {
      boundedIo.shutdown();
      boundedIo = null;
    }
  }

  /** The client-go candidate binary, built (or found in the cache) on first use. */
  private synchronized Path goBinary() {
    if (goBinary == null) {
      try {
        goBinary = ClientGoCandidate.privateBinary();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while building the client-go candidate", e);
      }
    }
    return goBinary;
  }

  private String lockName(String prefix) {
    return prefix + "-" + LOCKS.incrementAndGet();
  }

  private Candidate candidate(
      Impl impl,
      ApiClient client,
      String name,
      String identity,
      Timings timings,
      Recorder recorder) {
    return switch (impl) {
      case ELECTOR ->
          new ElectorCandidate(
              client, namespace, name, identity, timings, true, false, recorder, null);
      case ELECTOR_POLL ->
          new ElectorCandidate(
              client, namespace, name, identity, timings, false, false, recorder, null);
      case ELECTOR_BOUNDED ->
          new ElectorCandidate(
              client, namespace, name, identity, timings, false, false, recorder, boundedIo());
      case ELECTOR_SHARED ->
          new ElectorCandidate(
              client, namespace, name, identity, timings, true, true, recorder, boundedIo());
      case ELECTOR_FABRIC8 ->
          new ElectorCandidate(
              Fabric8LeaseLock.newBuilder(cluster.fabric8())
                  .namespace(namespace)
                  .name(name)
                  .identity(identity)
                  .build(),
              timings,
              true,
              recorder);
      case CLIENT_JAVA ->
          new ClientJavaCandidate(client, namespace, name, identity, timings, recorder);
      case FABRIC8 ->
          new Fabric8Candidate(cluster.fabric8(), namespace, name, identity, timings, recorder);
      case CLIENT_GO ->
          new ClientGoCandidate(
              goBinary(), cluster.kubeconfig(), namespace, name, identity, timings, recorder);
    };
  }

  /** One election: n candidates on one fresh lock. */
  private final class Election {
    final Recorder recorder = new Recorder();
    final Map<String, Candidate> byId = new HashMap<>();

    Election(Impl impl, ApiClient client, Timings timings, int n) {
      String name = lockName(impl.key);
      for (int i = 0; i < n; i++) {
        String id = name + "-c" + i;
        byId.put(id, candidate(impl, client, name, id, timings, recorder));
      }
    }

    void start() {
      byId.values().forEach(Candidate::start);
    }

    void shutdown() {
      byId.values().forEach(Candidate::shutdown);
    }
  }

  /**
   * Crash failover (graceful=false) or graceful handover (graceful=true), repeated concurrently on
   * distinct locks.
   */
  Takeover takeover(Impl impl, Timings timings, int n, int repetitions, boolean graceful)
      throws Exception {
    ApiClient client = cluster.newApiClient();
    List<Election> elections = new ArrayList<>();
    for (int r = 0; r < repetitions; r++) {
      Election election = new Election(impl, client, timings, n);
      election.byId.values().forEach(c -> c.probe().trace());
      elections.add(election);
    }
    Semaphore atOnce =
        new Semaphore(impl == Impl.CLIENT_GO ? CLIENT_GO_ELECTIONS_AT_ONCE : repetitions);
    List<double[]> breakdowns = new ArrayList<>();
    List<Double> fromStop = new ArrayList<>();
    List<Double> fromRenew = new ArrayList<>();
    int[] missing = {0};
    List<Recorder.Event> sample = new ArrayList<>();
    long[] sampleChange = {0};
    List<Thread> threads = new ArrayList<>();
    for (Election election : elections) {
      Thread thread =
          new Thread(
              () -> {
                atOnce.acquireUninterruptibly();
                try {
                  long waitNanos = timings.lease().multipliedBy(3).plusSeconds(20).toNanos();
                  election.start();
                  Optional<String> leader =
                      election.recorder.awaitOneLeader(System.nanoTime() + waitNanos);
                  if (leader.isEmpty()) {
                    synchronized (fromStop) {
                      missing[0]++;
                    }
                    return;
                  }
                  // let every follower observe the record, then stop at a random phase of the renew
                  // cycle
                  long settle =
                      timings.retry().multipliedBy(2).toNanos()
                          + ThreadLocalRandom.current().nextLong(timings.retry().toNanos());
                  LockSupport.parkNanos(settle);
                  Candidate old = election.byId.get(leader.get());
                  long lastRenew = old.probe().lastWriteNanos();
                  long t0 = System.nanoTime();
                  if (graceful) {
                    old.closeGracefully();
                  } else {
                    old.crash();
                  }
                  Optional<Recorder.Event> next =
                      election.recorder.awaitStartAfter(t0, old.identity(), t0 + waitNanos);
                  if (!graceful) {
                    lastRenew = old.probe().lastWriteNanos();
                  }
                  synchronized (fromStop) {
                    if (next.isEmpty()) {
                      missing[0]++;
                    } else {
                      fromStop.add((next.get().nanos() - t0) / 1e6);
                      fromRenew.add((next.get().nanos() - lastRenew) / 1e6);
                      if (graceful && impl.isElector()) {
                        breakdowns.add(
                            handoverParts(
                                t0,
                                old.probe(),
                                election.byId.get(next.get().identity()).probe(),
                                next.get().nanos()));
                      }
                      if (sample.isEmpty()) {
                        LockSupport.parkNanos(timings.retry().toNanos());
                        sample.addAll(election.recorder.events());
                        sampleChange[0] = t0;
                      }
                    }
                  }
                } finally {
                  election.shutdown();
                  atOnce.release();
                }
              },
              "bench-" + impl.key);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    for (Thread thread : threads) {
      thread.join(timings.lease().multipliedBy(8).plusSeconds(60).toMillis());
    }
    elections.forEach(Election::shutdown);
    log.info(
        "{} {} n={} {}: {} of {} measured",
        graceful ? "handover" : "failover",
        impl.key,
        n,
        timings.shortName(),
        fromStop.size(),
        repetitions);
    return new Takeover(
        impl,
        timings,
        n,
        fromStop,
        fromRenew,
        repetitions,
        missing[0],
        sample,
        sampleChange[0],
        breakdowns);
  }

  /** The parts of one handover (see {@link #HANDOVER_PARTS}) from the two traced probes. */
  static double[] handoverParts(long t0, Probe old, Probe next, long startedNanos) {
    long releaseIssued = old.first(Probe.MarkKind.WRITE, t0);
    long releaseDone = releaseIssued < 0 ? -1 : old.first(Probe.MarkKind.WRITE_DONE, releaseIssued);
    long event = next.first(Probe.MarkKind.WATCH_RELEASED, t0);
    long acquireIssued = next.last(Probe.MarkKind.WRITE, t0, startedNanos);
    long acquireDone =
        acquireIssued < 0 ? -1 : next.first(Probe.MarkKind.WRITE_DONE, acquireIssued);
    return new double[] {
      span(t0, releaseIssued),
      span(releaseIssued, releaseDone),
      span(releaseIssued, event),
      span(event, acquireIssued),
      span(acquireIssued, acquireDone),
      span(acquireDone, startedNanos)
    };
  }

  private static double span(long from, long to) {
    return from < 0 || to < 0 ? Double.NaN : (to - from) / 1e6;
  }

  /** Requests per second for a resource with nothing of ours running. */
  Map<String, Double> baseline(Duration window) {
    Map<String, Double> before = cluster.requestCounts("leases");
    LockSupport.parkNanos(window.toNanos());
    return rates(before, cluster.requestCounts("leases"), window.toNanos() / 1e9, Map.of());
  }

  private static Map<String, Double> rates(
      Map<String, Double> before,
      Map<String, Double> after,
      double seconds,
      Map<String, Double> minus) {
    Map<String, Double> result = new HashMap<>();
    after.forEach(
        (verb, count) -> {
          double rate =
              (count - before.getOrDefault(verb, 0.0)) / seconds - minus.getOrDefault(verb, 0.0);
          if (rate > 0.0005) {
            result.put(verb, rate);
          }
        });
    return result;
  }

  /** 1 leader + (n-1) followers on one Lease; the server's counters over a window. */
  Load load(Impl impl, Timings timings, int n, Duration window, Map<String, Double> baseline)
      throws IOException {
    ApiClient client = cluster.newApiClient();
    Election election = new Election(impl, client, timings, n);
    election.start();
    try {
      election.recorder.awaitOneLeader(
          System.nanoTime() + timings.lease().multipliedBy(3).plusSeconds(20).toNanos());
      LockSupport.parkNanos(timings.retry().multipliedBy(2).plusSeconds(2).toNanos());
      Map<String, Double> before = cluster.requestCounts("leases");
      long start = System.nanoTime();
      LockSupport.parkNanos(window.toNanos());
      Map<String, Double> after = cluster.requestCounts("leases");
      double seconds = (System.nanoTime() - start) / 1e9;
      Load load = new Load(impl, timings, n, seconds, rates(before, after, seconds, baseline));
      log.info(
          "load {}: {} req/s {}",
          impl.key,
          String.format("%.2f", load.total()),
          load.perSecondByVerb());
      return load;
    } finally {
      election.shutdown();
      endBoundedIo();
    }
  }

  /** n electors on n distinct Leases in this JVM, sharing one client. */
  Scale scale(
      Impl impl, Timings timings, int n, Duration window, Duration acquireCap, Duration settle)
      throws IOException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ApiClient client = cluster.newApiClient();
    cluster.requestCounts("leases"); // the harness's own client threads start before the baseline
    LockSupport.parkNanos(settle.toNanos());
    System.gc();
    Map<String, Integer> groupsBefore = threadGroups();
    long heapBefore = memory.getHeapMemoryUsage().getUsed();
    int threadsBefore = threads.getThreadCount();
    threads.resetPeakThreadCount();
    Recorder recorder = new Recorder();
    List<Candidate> all = new ArrayList<>();
    String note = "";
    try {
      String prefix = lockName("scale-" + impl.key + "-" + n);
      for (int i = 0; i < n; i++) {
        all.add(
            candidate(impl, client, prefix + "-" + i, prefix + "-" + i + "-c", timings, recorder));
      }
      long startNanos = System.nanoTime();
      for (Candidate c : all) {
        try {
          c.start();
        } catch (RuntimeException | OutOfMemoryError e) {
          note = "could not start all: " + e;
          break;
        }
      }
      long deadline = startNanos + acquireCap.toNanos();
      while (recorder.leaders().size() < n && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(50_000_000L);
      }
      double acquireSeconds = (System.nanoTime() - startNanos) / 1e9;
      if (recorder.leaders().size() < n) {
        note =
            (note.isEmpty() ? "" : note + "; ")
                + recorder.leaders().size()
                + " of "
                + n
                + " leading after the "
                + acquireCap.toSeconds()
                + " s cap";
      }
      all.forEach(c -> c.probe().trackGaps());
      long stopsBefore = recorder.events().stream().filter(e -> !e.started()).count();
      Map<String, Double> requestsBefore = cluster.requestCounts("leases");
      long cpuBefore = os.getProcessCpuTime();
      long windowStart = System.nanoTime();
      LockSupport.parkNanos(window.toNanos());
      double wall = (System.nanoTime() - windowStart);
      double requestsPerSecond =
          rates(requestsBefore, cluster.requestCounts("leases"), wall / 1e9, Map.of())
              .values()
              .stream()
              .mapToDouble(Double::doubleValue)
              .sum();
      double cpuCores = (os.getProcessCpuTime() - cpuBefore) / wall;
      int addedThreads = threads.getThreadCount() - threadsBefore;
      String added = addedThreadGroups(groupsBefore, threadGroups());
      int peakAdded = threads.getPeakThreadCount() - threadsBefore;
      long stops = recorder.events().stream().filter(e -> !e.started()).count() - stopsBefore;
      List<String> leaders = recorder.leaders();
      long okGap = timings.retry().multipliedBy(2).toNanos();
      int onTime = 0;
      long maxGap = 0;
      for (Candidate c : all) {
        long gap = c.probe().maxGapNanos();
        maxGap = Math.max(maxGap, gap);
        if (gap <= okGap && leaders.contains(c.identity())) {
          onTime++;
        }
      }
      System.gc();
      double heapMb = (memory.getHeapMemoryUsage().getUsed() - heapBefore) / 1048576.0;
      if (stops > 0) {
        note = (note.isEmpty() ? "" : note + "; ") + stops + " terms lost in the window";
      }
      if (!timings.equals(Timings.DEFAULT)) {
        note = (note.isEmpty() ? "" : note + "; ") + "timings " + timings.values();
      }
      note = (note.isEmpty() ? "" : note + "; ") + "threads added: " + added;
      Scale scale =
          new Scale(
              impl,
              n,
              leaders.size(),
              onTime,
              maxGap / 1e6,
              addedThreads,
              peakAdded,
              heapMb,
              cpuCores,
              acquireSeconds,
              requestsPerSecond,
              note);
      log.info("scale {}", scale);
      return scale;
    } finally {
      all.forEach(Candidate::shutdown);
      endBoundedIo();
    }
  }

  /** Live threads by name, with digits folded, so pools show up as one entry each. */
  private static Map<String, Integer> threadGroups() {
    Map<String, Integer> groups = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive()) {
        groups.merge(t.getName().replaceAll("[0-9]+", "N"), 1, Integer::sum);
      }
    }
    return groups;
  }

  private static String addedThreadGroups(Map<String, Integer> before, Map<String, Integer> after) {
    List<Map.Entry<String, Integer>> added = new ArrayList<>();
    after.forEach(
        (name, count) -> {
          int delta = count - before.getOrDefault(name, 0);
          if (delta > 0) {
            added.add(Map.entry(name, delta));
          }
        });
    added.sort((a, b) -> b.getValue() - a.getValue());
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < Math.min(8, added.size()); i++) {
      text.append(i > 0 ? ", " : "")
          .append(added.get(i).getValue())
          .append(" × ")
          .append(added.get(i).getKey());
    }
    return added.isEmpty() ? "none" : text.toString();
  }
}
