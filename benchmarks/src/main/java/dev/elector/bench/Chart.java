package dev.elector.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The SVG chart: handover and failover medians (with p95 whiskers) per implementation on a log
 * axis, and for each implementation the leadership timeline of one crash failover.
 */
final class Chart {
  private static final int WIDTH = 960;
  private static final int BARS_HEIGHT = 380;
  private static final int FLOORS_HEIGHT = 190;
  private static final int SCALE_HEIGHT = 230;
  private static final String[] COLORS = {"#2b6cb0", "#63b3ed", "#dd6b20", "#38a169", "#805ad5"};
  private final Results r;
  private final StringBuilder svg = new StringBuilder();

  Chart(Results results) {
    this.r = results;
  }

  private static String n(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private void text(double x, double y, String anchor, int size, String s) {
    svg.append("<text x=\"")
        .append(n(x))
        .append("\" y=\"")
        .append(n(y))
        .append("\" text-anchor=\"")
        .append(anchor)
        .append("\" font-size=\"")
        .append(size)
        .append("\">")
        .append(esc(s))
        .append("</text>\n");
  }

  private void line(double x1, double y1, double x2, double y2, String stroke, String extra) {
    svg.append("<line x1=\"")
        .append(n(x1))
        .append("\" y1=\"")
        .append(n(y1))
        .append("\" x2=\"")
        .append(n(x2))
        .append("\" y2=\"")
        .append(n(y2))
        .append("\" stroke=\"")
        .append(stroke)
        .append("\" ")
        .append(extra)
        .append("/>\n");
  }

  private void rect(double x, double y, double w, double h, String fill) {
    svg.append("<rect x=\"")
        .append(n(x))
        .append("\" y=\"")
        .append(n(y))
        .append("\" width=\"")
        .append(n(Math.max(w, 0.5)))
        .append("\" height=\"")
        .append(n(Math.max(h, 0.5)))
        .append("\" fill=\"")
        .append(fill)
        .append("\"/>\n");
  }

  String svg() {
    List<Impl> impls =
        List.of(Impl.ELECTOR, Impl.ELECTOR_FABRIC8, Impl.CLIENT_JAVA, Impl.FABRIC8, Impl.CLIENT_GO);
    Scenarios.Takeover sample = timelineSource();
    int timelineRows = sample == null ? 0 : 3 * sample.candidates();
    int timelineHeight = 70 + impls.size() * 20 + timelineRows * 16;
    int height = BARS_HEIGHT + FLOORS_HEIGHT + SCALE_HEIGHT + timelineHeight;
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" font-family=\"sans-serif\">\n")
        .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    bars(impls);
    acquires(impls, BARS_HEIGHT);
    scale(BARS_HEIGHT + FLOORS_HEIGHT);
    if (sample != null) {
      timelines(impls, BARS_HEIGHT + FLOORS_HEIGHT + SCALE_HEIGHT, sample);
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private void bars(List<Impl> impls) {
    Map<String, List<Scenarios.Takeover>> groups = new LinkedHashMap<>();
    for (Scenarios.Takeover t : r.handovers) {
      groups
          .computeIfAbsent(
              "handover, " + t.timings().shortName() + ", n=" + t.candidates(),
              k -> new ArrayList<>())
          .add(t);
    }
    for (Scenarios.Takeover t : r.failovers) {
      groups
          .computeIfAbsent(
              "crash failover, " + t.timings().shortName() + ", n=" + t.candidates(),
              k -> new ArrayList<>())
          .add(t);
    }
    double left = 70;
    double right = WIDTH - 20;
    double top = 50;
    double bottom = BARS_HEIGHT - 70;
    text(
        WIDTH / 2.0,
        24,
        "middle",
        16,
        "Time until the next leader starts (median bar, p95"
            + " whisker; log scale) — "
            + (r.quick ? "quick mode" : "full mode"));
    double lo = 1;
    double hi = 100_000;
    for (double tick = lo; tick <= hi; tick *= 10) {
      double y = y(tick, lo, hi, top, bottom);
      line(left, y, right, y, "#ddd", "");
      text(
          left - 6,
          y + 4,
          "end",
          11,
          tick >= 1000
              ? n(tick / 1000).replace(".0", "") + " s"
              : n(tick).replace(".0", "") + " ms");
    }
    line(left, bottom, right, bottom, "#333", "");
    int g = 0;
    double groupWidth = groups.isEmpty() ? 0 : (right - left) / groups.size();
    for (Map.Entry<String, List<Scenarios.Takeover>> group : groups.entrySet()) {
      double gx = left + g * groupWidth;
      double barWidth = groupWidth * 0.8 / impls.size();
      for (int i = 0; i < impls.size(); i++) {
        Impl impl = impls.get(i);
        for (Scenarios.Takeover t : group.getValue()) {
          if (t.impl() != impl || t.fromStopMs().isEmpty()) {
            continue;
          }
          double median = Math.max(lo, Stats.median(t.fromStopMs()));
          double p95 = Math.max(lo, Stats.percentile(t.fromStopMs(), 95));
          double x = gx + groupWidth * 0.1 + i * barWidth;
          double yTop = y(median, lo, hi, top, bottom);
          rect(x + 2, yTop, barWidth - 4, bottom - yTop, COLORS[i]);
          double yP95 = y(p95, lo, hi, top, bottom);
          double cx = x + barWidth / 2;
          line(cx, yTop, cx, yP95, "#111", "stroke-width=\"1.5\"");
          line(cx - 5, yP95, cx + 5, yP95, "#111", "stroke-width=\"1.5\"");
          text(
              cx,
              yP95 - 4,
              "middle",
              10,
              median >= 1000 ? n(median / 1000) + " s" : Math.round(median) + " ms");
        }
      }
      text(gx + groupWidth / 2, bottom + 16, "middle", 11, group.getKey());
      double floor =
          Stats.median(r.handoverFloor.stream().map(Floors.HandoverFloor::totalMs).toList());
      if (group.getKey().startsWith("handover") && !Double.isNaN(floor)) {
        double fy = y(Math.max(lo, floor), lo, hi, top, bottom);
        line(gx + 4, fy, gx + groupWidth - 4, fy, "#c53030", "stroke-dasharray=\"4 3\"");
        text(gx + groupWidth - 4, fy - 3, "end", 10, "round-trip floor " + n(floor) + " ms");
      }
      g++;
    }
    double lx = left;
    for (int i = 0; i < impls.size(); i++) {
      rect(lx, BARS_HEIGHT - 34, 12, 12, COLORS[i]);
      text(lx + 16, BARS_HEIGHT - 24, "start", 10, impls.get(i).label);
      lx += (right - left) / impls.size();
    }
  }

  /** Elector's acquire of a free Lease beside the bare create measured between its acquires. */
  private void acquires(List<Impl> impls, double top) {
    double left = 20;
    double right = WIDTH / 2.0 - 20;
    text(
        (left + right) / 2,
        top + 20,
        "middle",
        14,
        "Acquire of a free Lease (median) vs a bare create");
    List<Floors.Acquire> rows = r.acquireFloors;
    if (rows.isEmpty()) {
      text((left + right) / 2, top + 60, "middle", 11, "not measured");
      return;
    }
    double max = 0;
    for (Floors.Acquire a : rows) {
      max = Math.max(max, Math.max(Stats.median(a.acquireMs()), Stats.median(a.createFloorMs())));
    }
    double labelRight = left + 280;
    double barRight = right - 120;
    double y = top + 40;
    double rowHeight = Math.min(44, (FLOORS_HEIGHT - 60) / (double) rows.size());
    for (Floors.Acquire a : rows) {
      double acquire = Stats.median(a.acquireMs());
      double floor = Stats.median(a.createFloorMs());
      int color = Math.max(0, impls.indexOf(a.impl()));
      text(labelRight - 6, y + 11, "end", 10, a.impl().label + ", " + a.timings().shortName());
      double width = barRight - labelRight;
      rect(labelRight, y, width * acquire / max, rowHeight * 0.38, COLORS[color]);
      rect(labelRight, y + rowHeight * 0.42, width * floor / max, rowHeight * 0.3, "#a0aec0");
      text(
          labelRight + width * acquire / max + 4,
          y + 10,
          "start",
          10,
          n(acquire) + " ms (" + (acquire >= floor ? "+" : "") + n(acquire - floor) + ")");
      y += rowHeight;
    }
    rect(labelRight, top + FLOORS_HEIGHT - 22, 12, 10, "#a0aec0");
    text(labelRight + 16, top + FLOORS_HEIGHT - 13, "start", 10, "bare create (floor)");
  }

  /** Platform threads added at peak by n electors in one JVM, log scale, with the other figures. */
  private void scale(double top) {
    double left = 20;
    double right = WIDTH - 20;
    text(
        (left + right) / 2,
        top + 20,
        "middle",
        14,
        "n electors in one JVM: platform threads added at peak (log)");
    int largestCommon =
        r.scales.stream()
            .mapToInt(Scenarios.Scale::electors)
            .filter(n -> n < ScaleSteps.LARGE)
            .max()
            .orElse(0);
    List<Scenarios.Scale> rows =
        r.scales.stream()
            .filter(s -> s.electors() == largestCommon || s.electors() >= ScaleSteps.LARGE)
            .toList();
    if (rows.isEmpty()) {
      text((left + right) / 2, top + 60, "middle", 11, "not measured");
      return;
    }
    double labelRight = left + 280;
    double barRight = right - 260;
    double lo = 1;
    double hi = 10_000;
    double y = top + 36;
    double rowHeight = Math.min(30, (SCALE_HEIGHT - 50) / (double) rows.size());
    for (Scenarios.Scale s : rows) {
      String label = s.impl().label.replace(" (watching followers)", ", default builders");
      text(labelRight - 6, y + 10, "end", 9, label + ", n=" + s.electors());
      double threads = Math.max(lo, s.peakAddedThreads());
      double x =
          labelRight
              + (Math.log10(threads) - Math.log10(lo))
                  / (Math.log10(hi) - Math.log10(lo))
                  * (barRight - labelRight);
      rect(
          labelRight,
          y,
          x - labelRight,
          rowHeight * 0.6,
          s.impl().isElector() ? COLORS[0] : "#dd6b20");
      text(
          x + 4,
          y + 10,
          "start",
          9,
          s.peakAddedThreads()
              + " threads, "
              + s.onTime()
              + "/"
              + s.electors()
              + " on time, "
              + (s.leading() == s.electors()
                  ? "all leading after " + n(s.acquireSeconds()) + " s"
                  : s.leading() + " leading after " + n(s.acquireSeconds()) + " s"));
      y += rowHeight;
    }
  }

  private static double y(double v, double lo, double hi, double top, double bottom) {
    double f = (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
    return bottom - f * (bottom - top);
  }

  private Scenarios.Takeover timelineSource() {
    for (String timings : List.of("default", "scaled")) {
      for (Scenarios.Takeover t : r.failovers) {
        if (t.timings().shortName().equals(timings)
            && t.candidates() == 3
            && t.impl() == Impl.ELECTOR
            && !t.sampleTimeline().isEmpty()) {
          return t;
        }
      }
    }
    return null;
  }

  private void timelines(List<Impl> impls, double top, Scenarios.Takeover like) {
    text(
        WIDTH / 2.0,
        top + 20,
        "middle",
        16,
        "Leadership timeline of one crash failover ("
            + like.timings().name()
            + ", 3 candidates); t = 0 when the leader stops");
    double left = 200;
    double right = WIDTH - 20;
    double span = like.timings().lease().toMillis() * 1.6 + 2000;
    double from = -0.25 * span;
    double to = span * 0.75;
    double y = top + 50;
    double axisTop = y;
    for (int i = 0; i < impls.size(); i++) {
      Impl impl = impls.get(i);
      Scenarios.Takeover t = null;
      for (Scenarios.Takeover x : r.failovers) {
        if (x.impl() == impl
            && x.timings().equals(like.timings())
            && x.candidates() == like.candidates()
            && !x.sampleTimeline().isEmpty()) {
          t = x;
        }
      }
      text(10, y + 12, "start", 12, impl.label);
      y += 18;
      if (t == null) {
        text(left, y, "start", 11, "no sample");
        y += 16;
        continue;
      }
      Map<String, List<double[]>> rows = new LinkedHashMap<>();
      Map<String, Double> open = new LinkedHashMap<>();
      long zero = t.sampleChangeNanos();
      for (Recorder.Event e : t.sampleTimeline()) {
        double ms = (e.nanos() - zero) / 1e6;
        rows.computeIfAbsent(e.identity(), k -> new ArrayList<>());
        if (e.started()) {
          open.put(e.identity(), ms);
        } else if (open.containsKey(e.identity())) {
          rows.get(e.identity()).add(new double[] {open.remove(e.identity()), ms});
        }
      }
      open.forEach((id, start) -> rows.get(id).add(new double[] {start, to}));
      int c = 0;
      for (Map.Entry<String, List<double[]>> row : rows.entrySet()) {
        text(left - 6, y + 10, "end", 10, "candidate " + (++c));
        line(left, y + 6, right, y + 6, "#eee", "");
        for (double[] interval : row.getValue()) {
          double a = Math.max(from, interval[0]);
          double b = Math.min(to, interval[1]);
          if (b > a) {
            rect(
                x(a, from, to, left, right),
                y,
                x(b, from, to, left, right) - x(a, from, to, left, right),
                12,
                COLORS[i]);
          }
        }
        y += 16;
      }
    }
    double zeroX = x(0, from, to, left, right);
    line(zeroX, axisTop, zeroX, y, "#c53030", "stroke-dasharray=\"4 3\"");
    line(left, y + 2, right, y + 2, "#333", "");
    double tick = span > 20_000 ? 5000 : 1000;
    for (double s = Math.ceil(from / tick) * tick; s <= to; s += tick) {
      double x = x(s, from, to, left, right);
      line(x, y + 2, x, y + 6, "#333", "");
      text(x, y + 18, "middle", 10, Math.round(s / 1000) + " s");
    }
  }

  private static double x(double ms, double from, double to, double left, double right) {
    return left + (ms - from) / (to - from) * (right - left);
  }
}
