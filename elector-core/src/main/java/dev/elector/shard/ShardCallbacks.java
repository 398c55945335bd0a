package dev.elector.shard;

import dev.elector.LeaderCallbacks;
import dev.elector.Term;
import dev.elector.TermEnd;

/**
 * What a {@link ShardGroup} tells its user about each shard. Each shard is an ordinary election, so
 * these run as {@link LeaderCallbacks} do: one at a time per shard, on the callback executor, never
 * on a renewal's path, and the stop callback exactly once for every term that started.
 */
public interface ShardCallbacks {

  /** This replica started leading {@code shard}; start that shard's work. */
  void onStartedLeading(int shard, Term term);

  /** This replica stopped leading {@code shard}; stop that shard's work. */
  void onStoppedLeading(int shard, Term term, TermEnd reason);
}
