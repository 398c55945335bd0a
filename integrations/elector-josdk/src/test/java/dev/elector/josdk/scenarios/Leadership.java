package dev.elector.josdk.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Who led when, from the replicas' events, and the overlap detector. A replica leads from its
 * {@code LEADING} event until the first of: the end of its term ({@code activeUntil} of an Elector
 * term, after which the reconciler writes nothing), its {@code STOPPED} event, its exit, or its
 * death. With JOSDK's own election and exit-on-stop off, nothing ends a term but the process.
 */
final class Leadership {
  /** One replica's term, in monotonic nanoseconds; {@code end} is Long.MAX_VALUE while open. */
  record Interval(Replica replica, long start, long end) {
    boolean contains(long nanos) {
      return nanos >= start && nanos < end;
    }
  }

  /** Two replicas leading at once: who, and for how long. */
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

  private Leadership() {}

  static List<Interval> of(Replica replica) {
    List<Interval> terms = new ArrayList<>();
    long start = -1;
    for (Replica.Event e : replica.events()) {
      if (e.kind().equals("LEADING") && start < 0) {
        start = e.nanos();
      } else if (start >= 0
          && (e.kind().equals("TERM_ENDED")
              || e.kind().equals("STOPPED")
              || e.kind().equals("EXIT"))) {
        long end =
            e.fields().containsKey("activeUntil")
                ? Math.min(e.nanos(), e.nanosField("activeUntil"))
                : e.nanos();
        terms.add(new Interval(replica, start, end));
        start = -1;
      }
    }
    if (start >= 0) {
      terms.add(new Interval(replica, start, replica.endedNanos()));
    }
    return terms;
  }

  static List<Interval> of(List<Replica> replicas) {
    List<Interval> all = new ArrayList<>();
    replicas.forEach(r -> all.addAll(of(r)));
    return all;
  }

  /** Every pair of terms of different replicas that overlap, with the overlap up to {@code now}. */
  static List<Overlap> overlaps(List<Replica> replicas, long now) {
    List<Interval> all = of(replicas);
    List<Overlap> overlaps = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        Interval a = all.get(i);
        Interval b = all.get(j);
        long from = Math.max(a.start(), b.start());
        long to = Math.min(Math.min(a.end(), b.end()), now);
        if (a.replica() != b.replica() && to > from) {
          overlaps.add(new Overlap(a, b, to - from));
        }
      }
    }
    return overlaps;
  }

  static long overlapNanos(List<Replica> replicas, long now) {
    return overlaps(replicas, now).stream().mapToLong(Overlap::nanos).sum();
  }

  /**
   * Writes ({@code RECONCILED} events, at the moment the reconciler decided to write) made while
   * another replica led, or outside the writer's own terms.
   */
  static List<String> writesByNonLeaders(List<Replica> replicas) {
    List<Interval> all = of(replicas);
    List<String> wrong = new ArrayList<>();
    for (Replica r : replicas) {
      for (Replica.Event e : r.events("RECONCILED")) {
        long at = e.nanosField("checked");
        boolean own = all.stream().anyMatch(i -> i.replica() == r && i.contains(at));
        List<String> others =
            all.stream()
                .filter(i -> i.replica() != r && i.contains(at))
                .map(i -> i.replica().name)
                .toList();
        if (!own || !others.isEmpty()) {
          wrong.add(
              r.name
                  + " wrote "
                  + e.fields().get("object")
                  + (own ? "" : " outside its terms")
                  + (others.isEmpty() ? "" : " while " + others + " led"));
        }
      }
    }
    return wrong;
  }
}
