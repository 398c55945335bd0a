package dev.elector.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Writes RESULTS.md and results.svg from one run's measurements. */
final class Report {
  private final Results r;

  Report(Results results) {
    this.r = results;
  }

  /**
   * The line from which RESULTS.md holds sections that other runs wrote (the Spring Boot side by
   * side); a new report keeps them as they are.
   */
  static final String KEPT =
      "<!-- The sections below come from other runs; benchmarks/run.sh keeps them. -->";

  void write(Path dir) throws IOException {
    Path file = dir.resolve("RESULTS.md");
    Files.writeString(file, withKept(markdown(), Files.exists(file) ? Files.readString(file) : ""));
    Files.writeString(dir.resolve("results.svg"), new Chart(r).svg());
  }

  /** The new report, followed by the kept sections of the old file, if it has any. */
  static String withKept(String report, String old) {
    int at = old.indexOf(KEPT);
    return at < 0 ? report : report + old.substring(at);
  }

  static String f(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (Math.abs(v) >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /** A median against its floor: "+3.17 ms (1.22×)", or "-4.15 ms (0.71×)" below it. */
  static String overFloor(double median, double floor) {
    double over = median - floor;
    return (over < 0 ? "" : "+") + f(over) + " ms (" + ratio(median, floor) + ")";
  }

  static String ratio(double v, double base) {
    if (Double.isNaN(v) || Double.isNaN(base) || base == 0) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%.2f×", v / base);
  }

  private static String machine() {
    String cpu = "?";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
              .filter(l -> l.startsWith("model name"))
              .findFirst()
              .map(l -> l.substring(l.indexOf(':') + 1).trim())
              .orElse("?");
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    long memory =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize();
    return System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + " "
        + System.getProperty("os.arch")
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " CPUs ("
        + cpu
        + "), "
        + (memory >> 30)
        + " GiB RAM";
  }

  Optional<Scenarios.Takeover> takeover(
      List<Scenarios.Takeover> list, Impl impl, String timings, int n) {
    return list.stream()
        .filter(
            t -> t.impl() == impl && t.timings().shortName().equals(timings) && t.candidates() == n)
        .findFirst();
  }

  Optional<Scenarios.Load> load(Impl impl) {
    return r.loads.stream().filter(l -> l.impl() == impl).findFirst();
  }

  Optional<Results.Jmh> jmh(List<Results.Jmh> list, String subject) {
    return list.stream().filter(j -> j.subject().equals(subject)).findFirst();
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmark results\n\n");
    md.append("Written by `benchmarks/run.sh")
        .append(r.quick ? " --quick" : "")
        .append("` (")
        .append(
            r.quick
                ? "quick mode: few repetitions, short windows, scaled"
                    + " timings; not the goals' conditions"
                : "full mode")
        .append("). Nothing in this" + " file is edited by hand.\n\n");
    md.append("| | |\n|---|---|\n");
    md.append("| started | ")
        .append(r.startedAt)
        .append(" (took ")
        .append(Math.round(r.seconds))
        .append(" s) |\n");
    md.append("| machine | ").append(machine()).append(" |\n");
    md.append("| load average (1 min) at start / end | ")
        .append(f(r.loadAverageStart))
        .append(" / ")
        .append(f(r.loadAverageEnd))
        .append(" — the machine was shared with other builds |\n");
    md.append("| JVM | ")
        .append(System.getProperty("java.vm.name"))
        .append(' ')
        .append(System.getProperty("java.version"))
        .append(" |\n");
    md.append("| API server | local control plane: kube-apiserver ")
        .append(r.apiServerVersion)
        .append(" with embedded etcd, on the same machine |\n");
    md.append(
        "| implementations | Elector 0.1.0-SNAPSHOT; io.kubernetes:client-java-extended"
            + " 25.0.0; io.fabric8:kubernetes-client 8.0.0 (Jackson pinned to 2.22); client-go v0.37.2"
            + " (`testenv/cmd/elector-gocandidate`, one Go process per candidate) |\n");
    md.append(
        "| lock | a `coordination.k8s.io/v1` Lease for every implementation (JMH also"
            + " covers ConfigMap and in-memory for Elector) |\n");
    md.append("| timings | ")
        .append(Timings.DEFAULT.name())
        .append(" and ")
        .append(Timings.SCALED.name())
        .append(" (lease / renew deadline / retry period) |\n\n");
    if (!r.errors.isEmpty()) {
      md.append("**Steps that failed in this run:**\n\n");
      r.errors.forEach(
          (k, v) ->
              md.append("- ").append(k).append(": `").append(v.replace('`', '\'')).append("`\n"));
      md.append('\n');
    }
    md.append(
        "![handover and failover per implementation, and a leadership timeline]"
            + "(results.svg)\n\n");
    goals(md);
    method(md);
    jmhTables(md);
    floors(md);
    takeoverTable(
        md,
        "Crash failover",
        r.failovers,
        "The leader's lock calls start failing"
            + " (as if its process died; nothing is released), then its elector is stopped. Time"
            + " from that instant, and from the leader's last successful renewal, until another"
            + " candidate's start callback runs.");
    takeoverTable(
        md,
        "Graceful handover",
        r.handovers,
        "The leader is closed the way each"
            + " library releases (Elector `close()`, client-java `close()`, fabric8 cancel with"
            + " releaseOnCancel, client-go SIGTERM with ReleaseOnCancel). Time from the call until"
            + " another candidate's start callback.");
    handoverBreakdown(md);
    loadTable(md);
    scaleTable(md);
    return md.toString();
  }

  private void method(StringBuilder md) {
    md.append("## How it is measured\n\n");
    md.append(
        "- One API server for everything; the implementations run in turn, never at the"
            + " same time, with the same timings and the same kind of lock.\n");
    md.append(
        "- Every candidate's lock is wrapped in a probe that records when its writes"
            + " succeed, and acts as the kill switch for a crash: all further calls fail. The anchors"
            + " get the same wrapper around their own `Lock` classes.\n");
    md.append(
        "- client-go runs as `testenv/cmd/elector-gocandidate`, one Go process per"
            + " candidate (client-go's LeaderElector on its LeaseLock with ReleaseOnCancel, the same"
            + " timings); its start callbacks and successful writes are reported on stdout with"
            + " CLOCK_MONOTONIC instants, the clock of `System.nanoTime()`. A crash is SIGKILL, a"
            + " graceful close SIGTERM. At most 5 of its elections run at once.\n");
    md.append(
        "- Latency floors and breakdowns: see \"Round-trip floors\"; Elector's lock calls and"
            + " watch events are traced in every handover to split it into its parts.\n");
    md.append(
        "- Repetitions of failover and handover run concurrently, each on its own Lease,"
            + " started 20 ms apart; the leader is stopped at a random phase of its renew cycle,"
            + " 2–3 retry periods after the election settled.\n");
    md.append(
        "- API load: 1 leader + 9 followers on one Lease; requests counted by the server"
            + " (`apiserver_request_total` on `/metrics`, resource `leases`), minus what the server"
            + " does by itself (a baseline window with no candidates). A WATCH is counted by the"
            + " server when it ends, so long-lived watches show up only as LIST/WATCH on start.\n");
    md.append(
        "- Scale: n candidates on n distinct Leases in this JVM, each the only candidate of"
            + " its lock, sharing one client; threads, heap (after GC) and CPU are differences to"
            + " just before they started. \"On time\" means every gap between two successful"
            + " renewals in the window was at most 2 × retryPeriod and the term never ended."
            + " Requests/s: what the server counted on Leases over the window. Elector's rows"
            + " \"default builders\" set nothing but client, namespace, name and identity (so its"
            + " locks share one watch of the namespace's Leases, and its requests run on the default"
            + " pool); the full run adds one point of "
            + ScaleSteps.LARGE
            + " of them at "
            + Timings.LONG.values()
            + " (ten times client-go's defaults): it asks the server for as many renewals per"
            + " second as 1,000 locks at the defaults, where 10,000 locks at the defaults would"
            + " need 5,000 requests/s, several times what one local API server on 2 cores serves."
            + " Every point's window holds at least three renewal periods.\n");
    md.append(
        "- JMH: `RenewBenchmark` (sample time) runs one renewal as each implementation"
            + " puts it on the wire: Elector's single conditional merge patch, the anchors' read"
            + " followed by a write through their own lock classes, and the floor, a bare"
            + " client-java read + replace of the same Lease. `AcquireBenchmark` (single shot)"
            + " starts a new candidate on a free lock and stops the clock at its start callback."
            + (r.quick ? " Quick mode runs JMH in the same JVM (forks 0)." : " One fork.")
            + "\n\n");
  }

  private void goals(StringBuilder md) {
    String timings = r.quick ? "scaled" : "default";
    Timings t = r.quick ? Timings.SCALED : Timings.DEFAULT;
    md.append("## Goals\n\n");
    if (r.quick) {
      md.append(
          "Quick mode uses scaled timings and few repetitions; the verdicts below are"
              + " indicative only.\n\n");
    }
    md.append("| goal | measured | met? |\n|---|---|---|\n");
    Optional<Scenarios.Takeover> handover = takeover(r.handovers, Impl.ELECTOR, timings, 3);
    double hand = handover.map(h -> Stats.median(h.fromStopMs())).orElse(Double.NaN);
    md.append("| graceful handover median < 100 ms (")
        .append(timings)
        .append(" timings) | ")
        .append(f(hand))
        .append(" ms | ")
        .append(verdict(hand < 100))
        .append(" |\n");
    for (int n : List.of(3, 10)) {
      Optional<Scenarios.Takeover> e = takeover(r.failovers, Impl.ELECTOR, timings, n);
      if (e.isEmpty()) {
        continue;
      }
      double fromRenew = Stats.median(e.get().fromLastRenewMs());
      double fromStop = Stats.median(e.get().fromStopMs());
      double bound = t.lease().toMillis() + 100;
      double cj =
          takeover(r.failovers, Impl.CLIENT_JAVA, timings, n)
              .map(x -> Stats.median(x.fromStopMs()))
              .orElse(Double.NaN);
      double f8 =
          takeover(r.failovers, Impl.FABRIC8, timings, n)
              .map(x -> Stats.median(x.fromStopMs()))
              .orElse(Double.NaN);
      double go =
          takeover(r.failovers, Impl.CLIENT_GO, timings, n)
              .map(x -> Stats.median(x.fromStopMs()))
              .orElse(Double.NaN);
      md.append("| crash failover, n=")
          .append(n)
          .append(": median after the last renewal ≤ ")
          .append(f(bound))
          .append(" ms | ")
          .append(f(fromRenew))
          .append(" ms | ")
          .append(verdict(fromRenew <= bound))
          .append(" |\n");
      md.append("| crash failover, n=")
          .append(n)
          .append(": median from the stop below both" + " anchors | Elector ")
          .append(f(fromStop))
          .append(" ms, client-java ")
          .append(f(cj))
          .append(" ms, fabric8 ")
          .append(f(f8))
          .append(" ms (client-go ")
          .append(f(go))
          .append(" ms) | ")
          .append(verdict(fromStop < cj && fromStop < f8))
          .append(" |\n");
    }
    floorGoals(md);
    double elector = load(Impl.ELECTOR).map(Scenarios.Load::total).orElse(Double.NaN);
    double poll = load(Impl.ELECTOR_POLL).map(Scenarios.Load::total).orElse(Double.NaN);
    double bestAnchor =
        Math.min(
            load(Impl.CLIENT_JAVA).map(Scenarios.Load::total).orElse(Double.NaN),
            load(Impl.FABRIC8).map(Scenarios.Load::total).orElse(Double.NaN));
    md.append(
            "| API requests (1 leader + 9 followers) ≥ 5× fewer than the better anchor | "
                + "better anchor ")
        .append(f(bestAnchor))
        .append(" req/s; Elector watching ")
        .append(f(elector))
        .append(" req/s (")
        .append(ratio(bestAnchor, elector))
        .append(" fewer), polling ")
        .append(f(poll))
        .append(" req/s (")
        .append(ratio(bestAnchor, poll))
        .append(" fewer) | ")
        .append(verdict(bestAnchor / elector >= 5))
        .append(" |\n");
    double lease = jmh(r.renew, "elector-lease").map(Results.Jmh::p50).orElse(Double.NaN);
    double floor =
        jmh(r.renew, "floor-lease-read-replace").map(Results.Jmh::p50).orElse(Double.NaN);
    md.append("| renew within 5% of the bare read+replace floor (JMH median) | Elector ")
        .append(f(lease))
        .append(" ms, floor ")
        .append(f(floor))
        .append(" ms (")
        .append(ratio(lease, floor))
        .append(") | ")
        .append(verdict(lease <= floor * 1.05))
        .append(" |\n");
    Optional<Scenarios.Scale> byDefault = scale(Impl.ELECTOR, 1000);
    md.append(
            "| 1,000 electors with default builders: ≤ 16 platform threads added at peak, all"
                + " renewing on time, all leading within 3 s | ")
        .append(
            byDefault
                .map(
                    s ->
                        s.onTime()
                            + " of "
                            + s.electors()
                            + " on time, peak "
                            + s.peakAddedThreads()
                            + " threads added, all leading after "
                            + f(s.acquireSeconds())
                            + " s")
                .orElse("n/a"))
        .append(" | ")
        .append(
            verdict(
                byDefault
                    .map(
                        s ->
                            s.onTime() == s.electors()
                                && s.leading() == s.electors()
                                && s.peakAddedThreads() <= 16
                                && s.acquireSeconds() <= 3)
                    .orElse(false)))
        .append(" |\n");
    for (Impl impl : List.of(Impl.ELECTOR_BOUNDED, Impl.ELECTOR_SHARED)) {
      Optional<Scenarios.Scale> scale = scale(impl, 1000);
      md.append("| 1,000 electors renewing on time with ≤ 8 platform threads (")
          .append(impl.label)
          .append(") | ")
          .append(
              scale
                  .map(
                      s ->
                          s.electors()
                              + " electors: "
                              + s.onTime()
                              + " on time, "
                              + s.addedThreads()
                              + " threads added (peak "
                              + s.peakAddedThreads()
                              + ")")
                  .orElse("n/a"))
          .append(" | ")
          .append(
              verdict(
                  scale
                      .map(s -> s.onTime() == s.electors() && s.peakAddedThreads() <= 8)
                      .orElse(false)))
          .append(" |\n");
    }
    if (!r.quick) {
      Optional<Scenarios.Scale> large = scale(Impl.ELECTOR, ScaleSteps.LARGE);
      md.append(
              "| 10,000 electors on 10,000 Leases (default builders, one shared watch, timings "
                  + Timings.LONG.values()
                  + "): all leading and renewing on time | ")
          .append(
              large
                  .map(
                      s ->
                          s.leading()
                              + " leading after "
                              + f(s.acquireSeconds())
                              + " s, "
                              + s.onTime()
                              + " on time (max gap "
                              + f(s.maxGapMs())
                              + " ms), peak "
                              + s.peakAddedThreads()
                              + " threads added, "
                              + f(s.heapMb())
                              + " MiB heap, "
                              + f(s.cpuCores())
                              + " cores, "
                              + f(s.requestsPerSecond())
                              + " requests/s")
                  .orElse("n/a"))
          .append(" | ")
          .append(
              verdict(
                  large
                      .map(s -> s.onTime() == s.electors() && s.leading() == s.electors())
                      .orElse(false)))
          .append(" |\n");
    }
    md.append('\n');
  }

  /** The scale point of {@code impl} with {@code n} electors, if measured. */
  private Optional<Scenarios.Scale> scale(Impl impl, int n) {
    return r.scales.stream().filter(s -> s.impl() == impl && s.electors() == n).findFirst();
  }

  private static String verdict(boolean met) {
    return met ? "yes" : "**no**";
  }

  private void jmhTables(StringBuilder md) {
    md.append("## Latency (JMH)\n\n### Renew: one renewal of a held Lease\n\n");
    double floor =
        jmh(r.renew, "floor-lease-read-replace").map(Results.Jmh::p50).orElse(Double.NaN);
    md.append(
        "| subject | median ms | p95 ms | mean ms | samples | vs floor (median) |\n"
            + "|---|---|---|---|---|---|\n");
    for (Results.Jmh j : r.renew) {
      md.append("| ")
          .append(j.subject())
          .append(" | ")
          .append(f(j.p50()))
          .append(" | ")
          .append(f(j.p95()))
          .append(" | ")
          .append(f(j.mean()))
          .append(" | ")
          .append(j.samples())
          .append(" | ")
          .append(j.subject().equals("elector-memory") ? "(no I/O)" : ratio(j.p50(), floor))
          .append(" |\n");
    }
    md.append("\n### Acquire: a new candidate on a free lock, until its start callback\n\n");
    double base = jmh(r.acquire, "elector-lease").map(Results.Jmh::p50).orElse(Double.NaN);
    md.append(
        "| subject | median ms | p95 ms | mean ms | samples | vs elector-lease |\n"
            + "|---|---|---|---|---|---|\n");
    for (Results.Jmh j : r.acquire) {
      md.append("| ")
          .append(j.subject())
          .append(" | ")
          .append(f(j.p50()))
          .append(" | ")
          .append(f(j.p95()))
          .append(" | ")
          .append(f(j.mean()))
          .append(" | ")
          .append(j.samples())
          .append(" | ")
          .append(ratio(j.p50(), base))
          .append(" |\n");
    }
    md.append('\n');
  }

  private double createFloor(String timings) {
    List<Double> all = new ArrayList<>();
    r.acquireFloors.stream()
        .filter(a -> a.timings().shortName().equals(timings))
        .forEach(a -> all.addAll(a.createFloorMs()));
    return Stats.median(all);
  }

  private double handoverFloor() {
    return Stats.median(r.handoverFloor.stream().map(Floors.HandoverFloor::totalMs).toList());
  }

  private void floorGoals(StringBuilder md) {
    for (Floors.Acquire a : r.acquireFloors) {
      goalAgainstFloor(
          md,
          "acquire median ≤ create floor + 2 ms",
          a.impl(),
          a.timings(),
          Stats.median(a.acquireMs()),
          Stats.median(a.createFloorMs()),
          2);
    }
    double floor = handoverFloor();
    for (Scenarios.Takeover t : r.handovers) {
      if (t.impl().isElector()) {
        goalAgainstFloor(
            md,
            "graceful handover median ≤ handover floor + 5 ms",
            t.impl(),
            t.timings(),
            Stats.median(t.fromStopMs()),
            floor,
            5);
      }
    }
  }

  /** One goal row: {@code median} of {@code impl} at most {@code slackMs} over {@code floor}. */
  private static void goalAgainstFloor(
      StringBuilder md,
      String goal,
      Impl impl,
      Timings timings,
      double median,
      double floor,
      double slackMs) {
    md.append("| ")
        .append(goal)
        .append(" (")
        .append(impl.label)
        .append(", ")
        .append(timings.shortName())
        .append(" timings) | ")
        .append(f(median))
        .append(" ms, floor ")
        .append(f(floor))
        .append(" ms, ")
        .append(overFloor(median, floor))
        .append(" | ")
        .append(verdict(median <= floor + slackMs))
        .append(" |\n");
  }

  private void floors(StringBuilder md) {
    md.append("## Round-trip floors\n\n");
    md.append(
        "Measured in this run, through the same client and transport as Elector's Lease"
            + " lock, sequentially (one at a time), after a warm-up. The create floor is one bare POST"
            + " of a free Lease; it is measured between Elector's acquires (a new elector on a free"
            + " Lease, from `start()` to its start callback), so both see the same load. The handover"
            + " floor is a bare release PATCH, the time until a bare watch of the Lease delivers it,"
            + " and a bare acquire PATCH issued on that event, from the release's start to the"
            + " acquire's answer.\n\n");
    md.append("| measurement | median ms | p95 ms | samples |\n|---|---|---|---|\n");
    List<Double> release = r.handoverFloor.stream().map(Floors.HandoverFloor::releaseMs).toList();
    List<Double> event = r.handoverFloor.stream().map(Floors.HandoverFloor::eventMs).toList();
    List<Double> acquire = r.handoverFloor.stream().map(Floors.HandoverFloor::acquireMs).toList();
    List<Double> total = r.handoverFloor.stream().map(Floors.HandoverFloor::totalMs).toList();
    row(md, "handover floor: release PATCH", release);
    row(md, "handover floor: release start → watch event", event);
    row(md, "handover floor: acquire PATCH", acquire);
    row(md, "**handover floor** (release start → acquire answered)", total);
    for (Floors.Acquire a : r.acquireFloors) {
      row(
          md,
          "create floor (between "
              + a.impl().label
              + " acquires, "
              + a.timings().shortName()
              + " timings)",
          a.createFloorMs());
      row(
          md,
          a.impl().label + " acquire of a free Lease, " + a.timings().shortName() + " timings",
          a.acquireMs());
    }
    md.append("\n### Where an acquire's time goes\n\n");
    md.append(
        "Medians of the parts of each acquire above, from its traced lock calls; \"reads\""
            + " counts the acquires that read the Lease before writing.\n\n");
    md.append("| implementation | timings | reads |");
    for (String part : Floors.ACQUIRE_PARTS) {
      md.append(' ').append(part).append(" ms |");
    }
    md.append(" total ms | create floor ms |\n|---|---|---|");
    for (int i = 0; i < Floors.ACQUIRE_PARTS.length; i++) {
      md.append("---|");
    }
    md.append("---|---|\n");
    for (Floors.Acquire a : r.acquireFloors) {
      md.append("| ")
          .append(a.impl().label)
          .append(" | ")
          .append(a.timings().shortName())
          .append(" | ")
          .append(a.reads())
          .append(" / ")
          .append(a.acquireMs().size())
          .append(" |");
      for (int i = 0; i < Floors.ACQUIRE_PARTS.length; i++) {
        md.append(' ').append(f(partMedian(a.parts(), i))).append(" |");
      }
      md.append(' ')
          .append(f(Stats.median(a.acquireMs())))
          .append(" | ")
          .append(f(Stats.median(a.createFloorMs())))
          .append(" |\n");
    }
    md.append('\n');
  }

  private static double partMedian(List<double[]> parts, int i) {
    List<Double> values = new ArrayList<>();
    for (double[] p : parts) {
      if (!Double.isNaN(p[i])) {
        values.add(p[i]);
      }
    }
    return Stats.median(values);
  }

  private static void row(StringBuilder md, String what, List<Double> values) {
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(f(Stats.median(values)))
        .append(" | ")
        .append(f(Stats.percentile(values, 95)))
        .append(" | ")
        .append(values.size())
        .append(" |\n");
  }

  private void handoverBreakdown(StringBuilder md) {
    md.append("### Where a handover's time goes\n\n");
    md.append(
            "Medians over the repetitions above, from the old and new leaders' traced locks"
                + " (the release write and the watch event overlap: the event can arrive before the"
                + " release's answer). Handover floor in this run: ")
        .append(f(handoverFloor()))
        .append(" ms.\n\n");
    md.append("| implementation | timings |");
    for (String part : Scenarios.HANDOVER_PARTS) {
      md.append(' ').append(part).append(" ms |");
    }
    md.append(" handover ms | vs floor |\n|---|---|");
    for (int i = 0; i < Scenarios.HANDOVER_PARTS.length; i++) {
      md.append("---|");
    }
    md.append("---|---|\n");
    double floor = handoverFloor();
    for (Scenarios.Takeover t : r.handovers) {
      if (t.breakdowns().isEmpty()) {
        continue;
      }
      md.append("| ")
          .append(t.impl().label)
          .append(" | ")
          .append(t.timings().values())
          .append(" |");
      for (int i = 0; i < Scenarios.HANDOVER_PARTS.length; i++) {
        md.append(' ').append(f(partMedian(t.breakdowns(), i))).append(" |");
      }
      double median = Stats.median(t.fromStopMs());
      md.append(' ')
          .append(f(median))
          .append(" | ")
          .append(overFloor(median, floor))
          .append(" |\n");
    }
    md.append('\n');
  }

  private void takeoverTable(
      StringBuilder md, String title, List<Scenarios.Takeover> list, String how) {
    md.append("## ").append(title).append("\n\n").append(how).append("\n\n");
    md.append(
        "| implementation | timings | candidates | measured / runs | median ms | p95 ms |"
            + " median after last renewal ms | p95 after last renewal ms | median vs Elector |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
    for (Scenarios.Takeover t : list) {
      double elector =
          takeover(list, Impl.ELECTOR, t.timings().shortName(), t.candidates())
              .map(e -> Stats.median(e.fromStopMs()))
              .orElse(Double.NaN);
      double median = Stats.median(t.fromStopMs());
      md.append("| ")
          .append(t.impl().label)
          .append(" | ")
          .append(t.timings().values())
          .append(" | ")
          .append(t.candidates())
          .append(" | ")
          .append(t.fromStopMs().size())
          .append(" / ")
          .append(t.repetitions())
          .append(" | ")
          .append(f(median))
          .append(" | ")
          .append(f(Stats.percentile(t.fromStopMs(), 95)))
          .append(" | ")
          .append(f(Stats.median(t.fromLastRenewMs())))
          .append(" | ")
          .append(f(Stats.percentile(t.fromLastRenewMs(), 95)))
          .append(" | ")
          .append(ratio(median, elector))
          .append(" |\n");
    }
    md.append('\n');
  }

  private void loadTable(StringBuilder md) {
    md.append("## API load: 1 leader + 9 followers, steady state\n\n");
    String verbs = r.loads.isEmpty() ? "" : r.loads.get(0).timings().values();
    md.append("Timings ")
        .append(verbs)
        .append("; window ")
        .append(r.loads.isEmpty() ? "n/a" : f(r.loads.get(0).windowSeconds()))
        .append(" s." + " Server's own Lease traffic subtracted: ")
        .append(baseline())
        .append(".\n\n");
    TreeMap<String, Boolean> allVerbs = new TreeMap<>();
    r.loads.forEach(l -> l.perSecondByVerb().keySet().forEach(v -> allVerbs.put(v, true)));
    double elector = load(Impl.ELECTOR).map(Scenarios.Load::total).orElse(Double.NaN);
    md.append("| implementation | requests/s |");
    allVerbs.keySet().forEach(v -> md.append(' ').append(v).append(" /s |"));
    md.append(" vs Elector (watching) |\n|---|---|");
    allVerbs.keySet().forEach(v -> md.append("---|"));
    md.append("---|\n");
    for (Scenarios.Load l : r.loads) {
      md.append("| ").append(l.impl().label).append(" | ").append(f(l.total())).append(" |");
      allVerbs
          .keySet()
          .forEach(
              v -> md.append(' ').append(f(l.perSecondByVerb().getOrDefault(v, 0.0))).append(" |"));
      md.append(' ').append(ratio(l.total(), elector)).append(" |\n");
    }
    md.append('\n');
  }

  private String baseline() {
    if (r.baseline.isEmpty()) {
      return "none seen";
    }
    return r.baseline.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + " " + f(e.getValue()) + "/s")
            .collect(Collectors.joining(", "))
        + " (over "
        + f(r.baselineSeconds)
        + " s)";
  }

  private void scaleTable(StringBuilder md) {
    md.append("## Scale: n candidates on n Leases in one JVM (default timings)\n\n");
    md.append(
        "| implementation | n | leading | on time | max renew gap ms | threads added |"
            + " peak threads added | heap MiB | CPU cores | time to all leading s | requests/s |"
            + " note |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Scenarios.Scale s : r.scales) {
      md.append("| ")
          .append(s.impl().label)
          .append(s.impl() == Impl.ELECTOR ? ", default builders" : "")
          .append(" | ")
          .append(s.electors())
          .append(" | ")
          .append(s.leading())
          .append(" | ")
          .append(s.onTime())
          .append(" | ")
          .append(f(s.maxGapMs()))
          .append(" | ")
          .append(s.addedThreads())
          .append(" | ")
          .append(s.peakAddedThreads())
          .append(" | ")
          .append(f(s.heapMb()))
          .append(" | ")
          .append(f(s.cpuCores()))
          .append(" | ")
          .append(f(s.acquireSeconds()))
          .append(" | ")
          .append(f(s.requestsPerSecond()))
          .append(" | ")
          .append(s.note().isEmpty() ? "" : s.note().replace('|', '/'))
          .append(" |\n");
    }
    md.append('\n');
  }
}
