package dev.elector.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    String old = Files.exists(file) ? Files.readString(file) : "";
    Files.writeString(file, withKept(withRowIds(markdown(), old), old));
    Files.writeString(dir.resolve("results.svg"), new Chart(r).svg());
  }

  /** The new report, followed by the kept sections of the old file, if it has any. */
  static String withKept(String report, String old) {
    int at = old.indexOf(KEPT);
    return at < 0 ? report : report + old.substring(at);
  }

  private static final Pattern ROW_ID = Pattern.compile("^\\| <a id=\"([^\"]+)\"></a>");

  /**
   * The new report with the row ids of the old file ({@code <a id="..."></a>} at the start of a
   * row's first cell, which README.md and docs/ link their figures to) put back on the rows they
   * named: a row keeps its id when it has the same table heading and first cell as before, and, of
   * the rows of that table with that first cell (one per n, or per timings), the same place. A row
   * whose label changed loses its id, and docs-check then names every link to re-point.
   */
  static String withRowIds(String report, String old) {
    Map<String, String> ids = new HashMap<>();
    for (String[] row : rows(old)) {
      Matcher m = ROW_ID.matcher(row[1]);
      if (row[0] != null && m.find()) {
        ids.put(row[0], m.group(1));
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows(report)) {
      String line = row[1];
      String id = row[0] == null ? null : ids.get(row[0]);
      if (id != null && !ROW_ID.matcher(line).find()) {
        line = "| <a id=\"" + id + "\"></a>" + line.substring(2);
      }
      out.append(line).append('\n');
    }
    return out.substring(0, out.length() - 1);
  }

  /**
   * Each line of {@code text} as {key, line}: the key of a table row is its heading, its first cell
   * (without its id) and which row of that table with that first cell it is; other lines have none.
   */
  private static List<String[]> rows(String text) {
    List<String[]> rows = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    String heading = "";
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("#")) {
        heading = line;
      }
      String first = firstCell(line);
      String key = null;
      if (first != null) {
        String label = heading + "\u0000" + first;
        key = label + "\u0000" + seen.merge(label, 1, Integer::sum);
      }
      rows.add(new String[] {key, line});
    }
    return rows;
  }

  /** The first cell of a table row, without its id; null for any other line and an empty cell. */
  private static String firstCell(String line) {
    if (!line.startsWith("| ") || line.startsWith("| |")) {
      return null;
    }
    int end = line.indexOf(" |", 2);
    String first = end < 0 ? line.substring(2) : line.substring(2, end);
    first = first.replaceFirst("^<a id=\"[^\"]+\"></a>", "").strip();
    return first.isEmpty() ? null : first;
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
        .append("). Nothing in this file is edited by hand.\n\n");
    new MarkdownTable("", "")
        .row("started", r.startedAt + " (took " + Math.round(r.seconds) + " s)")
        .row("machine", machine())
        .row(
            "load average (1 min) at start / end",
            f(r.loadAverageStart)
                + " / "
                + f(r.loadAverageEnd)
                + " — the machine was shared with other builds")
        .row("JVM", System.getProperty("java.vm.name") + ' ' + System.getProperty("java.version"))
        .row(
            "API server",
            "local control plane: kube-apiserver "
                + r.apiServerVersion
                + " with embedded etcd, on the same machine")
        .row(
            "implementations",
            "Elector 0.1.0-SNAPSHOT; io.kubernetes:client-java-extended 25.0.0;"
                + " io.fabric8:kubernetes-client 8.0.0 (Jackson pinned to 2.22); client-go v0.37.2"
                + " (`testenv/cmd/elector-gocandidate`, one Go process per candidate)")
        .row(
            "lock",
            "a `coordination.k8s.io/v1` Lease for every implementation (JMH also covers ConfigMap"
                + " and in-memory for Elector)")
        .row(
            "timings",
            Timings.DEFAULT.name()
                + " and "
                + Timings.SCALED.name()
                + " (lease / renew deadline / retry period)")
        .appendTo(md, "\n");
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
    MarkdownTable table = new MarkdownTable("goal", "measured", "met?");
    double hand =
        takeover(r.handovers, Impl.ELECTOR, timings, 3)
            .map(h -> Stats.median(h.fromStopMs()))
            .orElse(Double.NaN);
    table.row(
        Goal.HANDOVER_MEDIAN.words() + " (" + timings + " timings)",
        f(hand) + " ms",
        verdict(hand < Goal.HANDOVER_MEDIAN.limit()));
    for (int n : List.of(3, 10)) {
      Optional<Scenarios.Takeover> e = takeover(r.failovers, Impl.ELECTOR, timings, n);
      if (e.isEmpty()) {
        continue;
      }
      double fromRenew = Stats.median(e.get().fromLastRenewMs());
      double fromStop = Stats.median(e.get().fromStopMs());
      double bound = t.lease().toMillis() + Goal.FAILOVER_AFTER_LEASE.limit();
      double cj = failoverFromStop(Impl.CLIENT_JAVA, timings, n);
      double f8 = failoverFromStop(Impl.FABRIC8, timings, n);
      double go = failoverFromStop(Impl.CLIENT_GO, timings, n);
      table.row(
          Goal.FAILOVER_AFTER_LEASE.words().replace("{n}", "" + n).replace("{bound}", f(bound)),
          f(fromRenew) + " ms",
          verdict(fromRenew <= bound));
      table.row(
          Goal.FAILOVER_BELOW_ANCHORS.words().replace("{n}", "" + n),
          "Elector "
              + f(fromStop)
              + " ms, client-java "
              + f(cj)
              + " ms, fabric8 "
              + f(f8)
              + " ms (client-go "
              + f(go)
              + " ms)",
          verdict(fromStop < cj && fromStop < f8));
    }
    for (Floors.Acquire a : r.acquireFloors) {
      againstFloor(
          table,
          Goal.ACQUIRE_OVER_CREATE_FLOOR,
          a.impl(),
          a.timings(),
          Stats.median(a.acquireMs()),
          Stats.median(a.createFloorMs()));
    }
    for (Scenarios.Takeover h : r.handovers) {
      if (h.impl().isElector()) {
        againstFloor(
            table,
            Goal.HANDOVER_OVER_FLOOR,
            h.impl(),
            h.timings(),
            Stats.median(h.fromStopMs()),
            handoverFloor());
      }
    }
    double elector = load(Impl.ELECTOR).map(Scenarios.Load::total).orElse(Double.NaN);
    double poll = load(Impl.ELECTOR_POLL).map(Scenarios.Load::total).orElse(Double.NaN);
    double bestAnchor =
        Math.min(
            load(Impl.CLIENT_JAVA).map(Scenarios.Load::total).orElse(Double.NaN),
            load(Impl.FABRIC8).map(Scenarios.Load::total).orElse(Double.NaN));
    table.row(
        Goal.FEWER_REQUESTS.words(),
        "better anchor "
            + f(bestAnchor)
            + " req/s; Elector watching "
            + f(elector)
            + " req/s ("
            + ratio(bestAnchor, elector)
            + " fewer), polling "
            + f(poll)
            + " req/s ("
            + ratio(bestAnchor, poll)
            + " fewer)",
        verdict(bestAnchor / elector >= Goal.FEWER_REQUESTS.limit()));
    double lease = jmh(r.renew, "elector-lease").map(Results.Jmh::p50).orElse(Double.NaN);
    double floor =
        jmh(r.renew, "floor-lease-read-replace").map(Results.Jmh::p50).orElse(Double.NaN);
    table.row(
        Goal.RENEW_NEAR_FLOOR.words(),
        "Elector " + f(lease) + " ms, floor " + f(floor) + " ms (" + ratio(lease, floor) + ")",
        verdict(lease <= floor * (1 + Goal.RENEW_NEAR_FLOOR.limit() / 100)));
    scaleGoals(table);
    table.appendTo(md, "\n");
  }

  private double failoverFromStop(Impl impl, String timings, int n) {
    return takeover(r.failovers, impl, timings, n)
        .map(x -> Stats.median(x.fromStopMs()))
        .orElse(Double.NaN);
  }

  private void scaleGoals(MarkdownTable table) {
    Goal byDefault = Goal.THOUSAND_DEFAULT_BUILDERS;
    Optional<Scenarios.Scale> thousand = scale(Impl.ELECTOR, 1000);
    table.row(
        byDefault.words(),
        thousand
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
            .orElse("n/a"),
        verdict(
            thousand
                .map(
                    s ->
                        s.onTime() == s.electors()
                            && s.leading() == s.electors()
                            && s.peakAddedThreads() <= byDefault.limit(0)
                            && s.acquireSeconds() <= byDefault.limit(1))
                .orElse(false)));
    for (Impl impl : List.of(Impl.ELECTOR_BOUNDED, Impl.ELECTOR_SHARED)) {
      Optional<Scenarios.Scale> scale = scale(impl, 1000);
      table.row(
          Goal.THOUSAND_TUNED.words() + " (" + impl.label + ")",
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
              .orElse("n/a"),
          verdict(
              scale
                  .map(
                      s ->
                          s.onTime() == s.electors()
                              && s.peakAddedThreads() <= Goal.THOUSAND_TUNED.limit())
                  .orElse(false)));
    }
    if (r.quick) {
      return;
    }
    Optional<Scenarios.Scale> large = scale(Impl.ELECTOR, ScaleSteps.LARGE);
    table.row(
        Goal.TEN_THOUSAND.words().replace("{timings}", Timings.LONG.values()),
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
            .orElse("n/a"),
        verdict(
            large
                .map(s -> s.onTime() == s.electors() && s.leading() == s.electors())
                .orElse(false)));
  }

  /** The scale point of {@code impl} with {@code n} electors, if measured. */
  private Optional<Scenarios.Scale> scale(Impl impl, int n) {
    return r.scales.stream().filter(s -> s.impl() == impl && s.electors() == n).findFirst();
  }

  private static String verdict(boolean met) {
    return met ? "yes" : "**no**";
  }

  /** One goal row: {@code median} of {@code impl} at most the goal's limit over {@code floor}. */
  private static void againstFloor(
      MarkdownTable table, Goal goal, Impl impl, Timings timings, double median, double floor) {
    table.row(
        goal.words() + " (" + impl.label + ", " + timings.shortName() + " timings)",
        f(median) + " ms, floor " + f(floor) + " ms, " + overFloor(median, floor),
        verdict(median <= floor + goal.limit()));
  }

  private void jmhTables(StringBuilder md) {
    md.append("## Latency (JMH)\n\n### Renew: one renewal of a held Lease\n\n");
    double floor =
        jmh(r.renew, "floor-lease-read-replace").map(Results.Jmh::p50).orElse(Double.NaN);
    MarkdownTable renew =
        new MarkdownTable(
            "subject", "median ms", "p95 ms", "mean ms", "samples", "vs floor (median)");
    for (Results.Jmh j : r.renew) {
      renew.row(
          j.subject(),
          f(j.p50()),
          f(j.p95()),
          f(j.mean()),
          j.samples(),
          j.subject().equals("elector-memory") ? "(no I/O)" : ratio(j.p50(), floor));
    }
    renew.appendTo(md, "");
    md.append("\n### Acquire: a new candidate on a free lock, until its start callback\n\n");
    double base = jmh(r.acquire, "elector-lease").map(Results.Jmh::p50).orElse(Double.NaN);
    MarkdownTable acquire =
        new MarkdownTable(
            "subject", "median ms", "p95 ms", "mean ms", "samples", "vs elector-lease");
    for (Results.Jmh j : r.acquire) {
      acquire.row(
          j.subject(), f(j.p50()), f(j.p95()), f(j.mean()), j.samples(), ratio(j.p50(), base));
    }
    acquire.appendTo(md, "\n");
  }

  private double handoverFloor() {
    return Stats.median(r.handoverFloor.stream().map(Floors.HandoverFloor::totalMs).toList());
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
    MarkdownTable floors = new MarkdownTable("measurement", "median ms", "p95 ms", "samples");
    row(floors, "handover floor: release PATCH", part(Floors.HandoverFloor::releaseMs));
    row(floors, "handover floor: release start → watch event", part(Floors.HandoverFloor::eventMs));
    row(floors, "handover floor: acquire PATCH", part(Floors.HandoverFloor::acquireMs));
    row(
        floors,
        "**handover floor** (release start → acquire answered)",
        part(Floors.HandoverFloor::totalMs));
    for (Floors.Acquire a : r.acquireFloors) {
      String timings = a.timings().shortName();
      row(
          floors,
          "create floor (between " + a.impl().label + " acquires, " + timings + " timings)",
          a.createFloorMs());
      row(
          floors,
          a.impl().label + " acquire of a free Lease, " + timings + " timings",
          a.acquireMs());
    }
    floors.appendTo(md, "");
    md.append("\n### Where an acquire's time goes\n\n");
    md.append(
        "Medians of the parts of each acquire above, from its traced lock calls; \"reads\""
            + " counts the acquires that read the Lease before writing.\n\n");
    List<String> header = new ArrayList<>(List.of("implementation", "timings", "reads"));
    for (String part : Floors.ACQUIRE_PARTS) {
      header.add(part + " ms");
    }
    header.addAll(List.of("total ms", "create floor ms"));
    MarkdownTable parts = new MarkdownTable(header);
    for (Floors.Acquire a : r.acquireFloors) {
      List<Object> cells = new ArrayList<>();
      cells.add(a.impl().label);
      cells.add(a.timings().shortName());
      cells.add(a.reads() + " / " + a.acquireMs().size());
      for (int i = 0; i < Floors.ACQUIRE_PARTS.length; i++) {
        cells.add(f(partMedian(a.parts(), i)));
      }
      cells.add(f(Stats.median(a.acquireMs())));
      cells.add(f(Stats.median(a.createFloorMs())));
      parts.row(cells.toArray());
    }
    parts.appendTo(md, "\n");
  }

  private List<Double> part(java.util.function.Function<Floors.HandoverFloor, Double> part) {
    return r.handoverFloor.stream().map(part).toList();
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

  private static void row(MarkdownTable table, String what, List<Double> values) {
    table.row(what, f(Stats.median(values)), f(Stats.percentile(values, 95)), values.size());
  }

  private void handoverBreakdown(StringBuilder md) {
    md.append("### Where a handover's time goes\n\n");
    md.append(
            "Medians over the repetitions above, from the old and new leaders' traced locks"
                + " (the release write and the watch event overlap: the event can arrive before the"
                + " release's answer). Handover floor in this run: ")
        .append(f(handoverFloor()))
        .append(" ms.\n\n");
    List<String> header = new ArrayList<>(List.of("implementation", "timings"));
    for (String part : Scenarios.HANDOVER_PARTS) {
      header.add(part + " ms");
    }
    header.addAll(List.of("handover ms", "vs floor"));
    MarkdownTable table = new MarkdownTable(header);
    double floor = handoverFloor();
    for (Scenarios.Takeover t : r.handovers) {
      if (t.breakdowns().isEmpty()) {
        continue;
      }
      List<Object> cells = new ArrayList<>(List.of(t.impl().label, t.timings().values()));
      for (int i = 0; i < Scenarios.HANDOVER_PARTS.length; i++) {
        cells.add(f(partMedian(t.breakdowns(), i)));
      }
      double median = Stats.median(t.fromStopMs());
      cells.add(f(median));
      cells.add(overFloor(median, floor));
      table.row(cells.toArray());
    }
    table.appendTo(md, "\n");
  }

  private void takeoverTable(
      StringBuilder md, String title, List<Scenarios.Takeover> list, String how) {
    md.append("## ").append(title).append("\n\n").append(how).append("\n\n");
    MarkdownTable table =
        new MarkdownTable(
            "implementation",
            "timings",
            "candidates",
            "measured / runs",
            "median ms",
            "p95 ms",
            "median after last renewal ms",
            "p95 after last renewal ms",
            "median vs Elector");
    for (Scenarios.Takeover t : list) {
      double elector =
          takeover(list, Impl.ELECTOR, t.timings().shortName(), t.candidates())
              .map(e -> Stats.median(e.fromStopMs()))
              .orElse(Double.NaN);
      double median = Stats.median(t.fromStopMs());
      table.row(
          t.impl().label,
          t.timings().values(),
          t.candidates(),
          t.fromStopMs().size() + " / " + t.repetitions(),
          f(median),
          f(Stats.percentile(t.fromStopMs(), 95)),
          f(Stats.median(t.fromLastRenewMs())),
          f(Stats.percentile(t.fromLastRenewMs(), 95)),
          ratio(median, elector));
    }
    table.appendTo(md, "\n");
  }

  private void loadTable(StringBuilder md) {
    md.append("## API load: 1 leader + 9 followers, steady state\n\n");
    String verbs = r.loads.isEmpty() ? "" : r.loads.get(0).timings().values();
    md.append("Timings ")
        .append(verbs)
        .append("; window ")
        .append(r.loads.isEmpty() ? "n/a" : f(r.loads.get(0).windowSeconds()))
        .append(" s. Server's own Lease traffic subtracted: ")
        .append(baseline())
        .append(".\n\n");
    TreeSet<String> allVerbs = new TreeSet<>();
    r.loads.forEach(l -> allVerbs.addAll(l.perSecondByVerb().keySet()));
    double elector = load(Impl.ELECTOR).map(Scenarios.Load::total).orElse(Double.NaN);
    List<String> header = new ArrayList<>(List.of("implementation", "requests/s"));
    allVerbs.forEach(v -> header.add(v + " /s"));
    header.add("vs Elector (watching)");
    MarkdownTable table = new MarkdownTable(header);
    for (Scenarios.Load l : r.loads) {
      List<Object> cells = new ArrayList<>(List.of(l.impl().label, f(l.total())));
      allVerbs.forEach(v -> cells.add(f(l.perSecondByVerb().getOrDefault(v, 0.0))));
      cells.add(ratio(l.total(), elector));
      table.row(cells.toArray());
    }
    table.appendTo(md, "\n");
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
    MarkdownTable table =
        new MarkdownTable(
            "implementation",
            "n",
            "leading",
            "on time",
            "max renew gap ms",
            "threads added",
            "peak threads added",
            "heap MiB",
            "CPU cores",
            "time to all leading s",
            "requests/s",
            "note");
    for (Scenarios.Scale s : r.scales) {
      table.row(
          s.impl().label + (s.impl() == Impl.ELECTOR ? ", default builders" : ""),
          s.electors(),
          s.leading(),
          s.onTime(),
          f(s.maxGapMs()),
          s.addedThreads(),
          s.peakAddedThreads(),
          f(s.heapMb()),
          f(s.cpuCores()),
          f(s.acquireSeconds()),
          f(s.requestsPerSecond()),
          s.note().replace('|', '/'));
    }
    table.appendTo(md, "\n");
  }
}
