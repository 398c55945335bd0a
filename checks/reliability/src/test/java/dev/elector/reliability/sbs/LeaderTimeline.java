package dev.elector.reliability.sbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Who led when, from the replicas' event lines, and the overlap detector (the approach of the JOSDK
 * scenarios' {@code Leadership}): a replica leads from its {@code LEADING} event until its {@code
 * REVOKED} event or the end of its process, whichever comes first.
 */
final class LeaderTimeline {
  /** One replica's term in monotonic nanoseconds; {@code end} is Long.MAX_VALUE while open. */
  record Interval(BootReplica replica, long start, long end) {
    boolean contains(long nanos) {
      return nanos >= start && nanos < end;
    }
  }

  /** Two replicas leading at once. */
  record Overlap(Interval first, Interval second, long nanos) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s and %s led at once for %d ms",
          first.replica(),
          second.replica(),
          nanos / 1_000_000);
    }
  }

  private LeaderTimeline() {}

  static List<Interval> of(BootReplica replica) {
    List<Interval> terms = new ArrayList<>();
    long start = -1;
    for (BootReplica.Event e : replica.events()) {
      if (e.kind().equals("LEADING") && start < 0) {
        start = e.nanos();
      } else if (start >= 0 && e.kind().equals("REVOKED")) {
        terms.add(new Interval(replica, start, e.nanos()));
        start = -1;
      }
    }
    if (start >= 0) {
      terms.add(new Interval(replica, start, replica.endedNanos()));
    }
    return terms;
  }

  static List<Interval> of(List<BootReplica> replicas) {
    List<Interval> all = new ArrayList<>();
    replicas.forEach(r -> all.addAll(of(r)));
    return all;
  }

  /** Every overlap of two replicas' terms within [from, to). */
  static List<Overlap> overlaps(List<BootReplica> replicas, long from, long to) {
    List<Interval> all = of(replicas);
    List<Overlap> overlaps = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        Interval a = all.get(i);
        Interval b = all.get(j);
        long lo = Math.max(from, Math.max(a.start(), b.start()));
        long hi = Math.min(to, Math.min(a.end(), b.end()));
        if (a.replica() != b.replica() && hi > lo) {
          overlaps.add(new Overlap(a, b, hi - lo));
        }
      }
    }
    return overlaps;
  }

  static long overlapNanos(List<BootReplica> replicas, long from, long to) {
    return overlaps(replicas, from, to).stream().mapToLong(Overlap::nanos).sum();
  }

  /**
   * Leader-only job runs decided (the {@code checked} moment of a {@code JOB} line) in [from, to)
   * while another replica led: the runs two leaders made at once.
   */
  static List<String> jobsWhileAnotherLed(List<BootReplica> replicas, long from, long to) {
    List<Interval> all = of(replicas);
    List<String> wrong = new ArrayList<>();
    for (BootReplica r : replicas) {
      for (BootReplica.Event e : r.events("JOB")) {
        long at = e.nanosField("checked");
        if (at < from || at >= to) {
          continue;
        }
        List<String> others =
            all.stream()
                .filter(i -> i.replica() != r && i.contains(at))
                .map(i -> i.replica().name)
                .toList();
        if (!others.isEmpty()) {
          wrong.add(r.name + " ran the job while " + others + " led");
        }
      }
    }
    return wrong;
  }
}
