package dev.elector.spring.autoconfigure;

import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import dev.elector.Term;
import java.util.LinkedHashMap;
import java.util.Map;

/** What health and info show of an elector, from one snapshot of its stats. */
final class ElectorDetails {
  private ElectorDetails() {}

  static Map<String, Object> of(LeaderElector elector) {
    return of(elector, elector.stats());
  }

  static Map<String, Object> of(LeaderElector elector, ElectorStats stats) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("lock", elector.describe());
    details.put("identity", elector.identity());
    details.put("leading", stats.leading());
    details.put("leader", stats.observedLeader().orElse(""));
    if (stats.leading()) {
      elector.currentTerm().map(Term::fencingToken).ifPresent(t -> details.put("fencingToken", t));
    }
    details.put("following", stats.watching() ? "watching" : stats.polling() ? "polling" : "none");
    details.put("detail", stats.status());
    return details;
  }
}
