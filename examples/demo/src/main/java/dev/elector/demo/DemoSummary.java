package dev.elector.demo;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the demo saw and checked: who led when, the failover times, the addresses served, and one
 * line per check. Printed as a table at the end and written as JSON, which a test reads.
 */
final class DemoSummary {
  /** One term of a process, in seconds since the demo started; end -1 while it lasts. */
  record Term(String who, String role, long token, double start, double end, String how) {}

  String cluster;
  String dhcp;
  String vmMac;
  String allocatedIp;
  String boundIp;
  String boundFrom;
  String renewedIp;
  String renewedFrom;
  String killed;
  final Map<String, Long> failoverMillis = new LinkedHashMap<>();
  final List<Term> terms = new ArrayList<>();
  final Map<String, List<String>> servedTo = new TreeMap<>();
  final Map<String, Integer> replies = new TreeMap<>();
  final Map<String, Boolean> checks = new LinkedHashMap<>();
  final List<String> notes = new ArrayList<>();

  /** Where an operator looks: metrics lines and Kubernetes Events read during the run. */
  final List<String> whereToLook = new ArrayList<>();

  boolean ok() {
    return !checks.isEmpty() && checks.values().stream().allMatch(Boolean::booleanValue);
  }

  void check(String what, boolean passed) {
    checks.put(what, passed);
  }

  /** Records a reply the agent sent: OFFERED or ACKED {@code ip} to {@code mac}. */
  void served(String ip, String mac, String kind) {
    List<String> macs = servedTo.computeIfAbsent(ip, k -> new ArrayList<>());
    if (!macs.contains(mac)) {
      macs.add(mac);
    }
    replies.merge(ip + " " + kind, 1, Integer::sum);
  }

  /** Whether terms of one role ever overlapped. */
  boolean overlapping(String role) {
    List<Term> sorted =
        terms.stream()
            .filter(t -> t.role().equals(role))
            .sorted((a, b) -> Double.compare(a.start(), b.start()))
            .toList();
    for (int i = 1; i < sorted.size(); i++) {
      double previousEnd = sorted.get(i - 1).end();
      if (previousEnd < 0 || sorted.get(i).start() < previousEnd) {
        return true;
      }
    }
    return false;
  }

  void render(Progress out) {
    out.print("");
    out.print("==================================== summary ====================================");
    out.print(String.format(Locale.ROOT, "%-18s %s", "cluster", cluster));
    out.print(String.format(Locale.ROOT, "%-18s %s", "DHCP", dhcp));
    out.print(
        String.format(
            Locale.ROOT,
            "%-18s %s -> %s (allocated by the controller)",
            "VM vm-1",
            vmMac,
            allocatedIp));
    out.print(String.format(Locale.ROOT, "%-18s %s from %s", "  first lease", boundIp, boundFrom));
    out.print(
        String.format(Locale.ROOT, "%-18s %s from %s", "  after failover", renewedIp, renewedFrom));
    out.print("");
    out.print("who led when (seconds since the demo started)");
    for (Term t : terms) {
      out.print(
          String.format(
              Locale.ROOT,
              "  %-10s %-30s token %-3d %7.2f .. %-8s %s",
              t.role(),
              t.who(),
              t.token(),
              t.start(),
              t.end() < 0 ? "end" : String.format(Locale.ROOT, "%.2f", t.end()),
              t.how()));
    }
    out.print("");
    out.print("failover after the leading agent was killed (" + killed + ")");
    failoverMillis.forEach((k, v) -> out.print(String.format(Locale.ROOT, "  %-40s %6d ms", k, v)));
    out.print("");
    out.print("addresses served");
    servedTo.forEach((ip, macs) -> out.print("  " + ip + " -> " + String.join(", ", macs)));
    replies.forEach((k, n) -> out.print("    " + k + " x" + n));
    out.print("");
    out.print("where to look (read while it ran)");
    whereToLook.forEach(line -> out.print("  " + line));
    out.print("");
    out.print("checks");
    checks.forEach((what, passed) -> out.print("  [" + (passed ? "ok" : "FAILED") + "] " + what));
    notes.forEach(n -> out.print("  note: " + n));
    out.print("");
    out.print("RESULT: " + (ok() ? "OK" : "FAILED"));
  }

  void write(Path file) throws IOException {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("ok", ok());
    json.put("cluster", cluster);
    json.put("dhcp", dhcp);
    Map<String, Object> vm = new LinkedHashMap<>();
    vm.put("mac", vmMac);
    vm.put("allocatedIp", allocatedIp);
    vm.put("boundIp", boundIp);
    vm.put("boundFrom", boundFrom);
    vm.put("renewedIp", renewedIp);
    vm.put("renewedFrom", renewedFrom);
    json.put("vm", vm);
    json.put("killed", killed);
    json.put("failoverMillis", failoverMillis);
    json.put("terms", terms);
    Map<String, Object> served = new TreeMap<>();
    servedTo.forEach((ip, macs) -> served.put(ip, new TreeSet<>(macs)));
    json.put("servedTo", served);
    json.put("checks", checks);
    json.put("notes", notes);
    Files.writeString(
        file,
        new GsonBuilder().setPrettyPrinting().serializeNulls().create().toJson(json) + "\n",
        StandardCharsets.UTF_8);
  }
}
