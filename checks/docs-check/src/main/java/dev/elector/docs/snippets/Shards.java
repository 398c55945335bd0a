package dev.elector.docs.snippets;

import dev.elector.LeaderCallbacks;
import dev.elector.Term;
import dev.elector.k8s.LeaseLock;
import dev.elector.shard.ShardGroup;
import io.kubernetes.client.openapi.ApiClient;

/** The snippets of the shard groups guide. */
final class Shards {
  private Shards() {}

  /** The work of one shard, started and stopped with its term. */
  interface Workers {
    void start(int shard, Term term);

    void stop(int shard);
  }

  static ShardGroup group(ApiClient client, Workers workers) {
    // tag::shards[]
    ShardGroup group = ShardGroup.newBuilder()
        .group("pools")                          // Leases pools-shard-0..11 and pools-member-0..11
        .shards(12)
        .locks(name -> LeaseLock.newBuilder(client).name(name).build())
        .callbacks(shard -> LeaderCallbacks.of( // each shard's own, an elector's callbacks
            term -> workers.start(shard, term),  // this replica is the only writer of the shard
            (term, reason) -> workers.stop(shard)))
        .build();
    group.start();                               // group.close() leaves: others take over at once
    // end::shards[]
    return group;
  }
}
