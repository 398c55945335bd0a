package dev.elector.docs.snippets;

import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/** The snippet of the frameworks guide's Quarkus section. */
final class QuarkusSnippets {
  private QuarkusSnippets() {}

  /** What the guide's leader work stands for. */
  interface Jobs {
    void start(long fencingToken);

    void stop();
  }

  // tag::quarkus[]
  @ApplicationScoped
  static class LeaderWork {
    private final Jobs jobs;

    LeaderWork(Jobs jobs) {
      this.jobs = jobs;
    }

    void start(@Observes LeadershipGranted granted) {
      jobs.start(granted.term().fencingToken());   // carry the token on what the leader writes
    }

    void stop(@Observes LeadershipRevoked revoked) {
      jobs.stop();    // at shutdown the Lease is released only after this returns
    }
  }
  // end::quarkus[]
}
