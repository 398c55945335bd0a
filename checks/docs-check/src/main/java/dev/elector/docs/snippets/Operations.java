package dev.elector.docs.snippets;

import dev.elector.LeaderElector;
import java.time.Duration;

/** The snippets of the operations guide: stepping down on purpose. */
final class Operations {
  private Operations() {}

  static void stepDown(LeaderElector elector) {
    // tag::step-down[]
    // Before this node drains: end the term, release the Lease, stay a candidate that holds back.
    if (elector.stepDown(Duration.ofSeconds(30))) {
      // onStoppedLeading ran (or is running) with TermEnd.STEPPED_DOWN; a follower leads now
    }
    // end::step-down[]
  }
}
