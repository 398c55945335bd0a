package dev.elector.spring.autoconfigure;

import dev.elector.LeaderElector;
import dev.elector.Term;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** What health and info show of an elector. */
final class ElectorDetails {
  private ElectorDetails() {}

  static Map<String, Object> of(LeaderElector elector) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("lock", elector.describe());
    details.put("identity", elector.identity());
    Optional<Term> term = elector.currentTerm();
    details.put("leading", term.isPresent());
    details.put("leader", elector.observedLeader().orElse(""));
    term.ifPresent(t -> details.put("fencingToken", t.fencingToken()));
    details.put("following", elector.stats().following().name().toLowerCase(java.util.Locale.ROOT));
    details.put("detail", elector.health().detail());
    return details;
  }
}
