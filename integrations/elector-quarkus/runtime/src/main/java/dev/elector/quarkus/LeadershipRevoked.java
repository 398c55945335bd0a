package dev.elector.quarkus;

import dev.elector.Term;
import dev.elector.TermEnd;
import java.util.Objects;

/**
 * A CDI event: this replica has stopped leading. Fired exactly once for every {@link
 * LeadershipGranted}, after the term's {@link Term#isActive()} turned false. Observe it to stop the
 * leader's work. At shutdown the lock is released only after the observers return (within {@code
 * quarkus.elector.close-timeout}), so the next leader never overlaps with this one's work.
 *
 * <p>Observers run on the elector's callback thread, as for {@link LeadershipGranted}.
 *
 * @param term the term that ended
 * @param reason why it ended: the renew deadline passed, the lock was lost, or the elector closed
 */
public record LeadershipRevoked(Term term, TermEnd reason) {
  /** Checks both are given. */
  public LeadershipRevoked {
    Objects.requireNonNull(term, "term");
    Objects.requireNonNull(reason, "reason");
  }
}
