package dev.elector.shard;

import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Replicas of one shard group on in-memory locks in virtual time, with one leadership timeline per
 * lock and a count of the shard terms started (each start after the first of a shard is a move).
 */
class ShardFixture {
  final VirtualTime time;
  final int shards;
  final Map<String, InMemoryLockStore> stores = new TreeMap<>();
  final Map<String, LeadershipTimeline> timelines = new TreeMap<>();
  final Map<String, Replica> replicas = new LinkedHashMap<>();
  private final UnaryOperator<ElectorConfig.Builder> tuning;
  int termsStarted;

  final class Replica {
    final String name;
    final List<FaultyLock> locks = new ArrayList<>();
    final ShardGroup group;

    /** Terms this replica's shard callbacks started, and those that reached another's. */
    int callbackStarts;

    final List<String> misrouted = new ArrayList<>();

    Replica(String name) {
      this.name = name;
      this.group =
          ShardGroup.newBuilder()
              .group("pools")
              .shards(shards)
              .locks(
                  lockName -> {
                    FaultyLock lock =
                        FaultyLock.wrap(
                            stores
                                .computeIfAbsent(lockName, InMemoryLockStore::create)
                                .lockFor(name),
                            time);
                    locks.add(lock);
                    return lock;
                  })
              .callbacks(
                  shard ->
                      LeaderCallbacks.of(
                          term -> heard(shard, term, "started"),
                          (term, reason) -> heard(shard, term, "stopped")))
              .config(b -> tuning.apply(time.configure(b).listener(timelineListener(name))))
              .build();
    }

    int leading() {
      return group.leading().size();
    }

    private void heard(int shard, Term term, String what) {
      if (what.equals("started")) {
        callbackStarts++;
      }
      if (!term.lock().endsWith("pools-shard-" + shard)) {
        misrouted.add("shard " + shard + "'s callbacks " + what + " a term of " + term.lock());
      }
    }

    /** Every call of this replica fails and its watches break, as if cut off or dead. */
    void cutOff() {
      locks.forEach(
          l -> {
            l.failAll(LockFailure.Kind.UNAVAILABLE);
            l.breakWatches(LockFailure.Kind.UNAVAILABLE);
          });
    }

    void reconnect() {
      locks.forEach(
          l -> {
            l.heal();
            l.mendWatches();
          });
    }
  }

  ShardFixture(long seed, int shards) {
    this(seed, shards, UnaryOperator.identity());
  }

  ShardFixture(long seed, int shards, UnaryOperator<ElectorConfig.Builder> tuning) {
    this.time = VirtualTime.withSeed(seed);
    this.shards = shards;
    this.tuning = tuning;
  }

  private ElectorListener timelineListener(String replica) {
    return new ElectorListener() {
      @Override
      public void onTermStarted(Term term) {
        if (term.lock().contains("-shard-")) {
          termsStarted++; // shard terms only; member slots are not shards
        }
        timeline(term).listenerFor(replica).onTermStarted(term);
      }

      @Override
      public void onTermEnded(Term term, TermEnd reason) {
        timeline(term).listenerFor(replica).onTermEnded(term, reason);
      }
    };
  }

  private synchronized LeadershipTimeline timeline(Term term) {
    return timelines.computeIfAbsent(term.lock(), k -> new LeadershipTimeline(time.clock()));
  }

  Replica start(String name) {
    Replica replica = new Replica(name);
    replicas.put(name, replica);
    replica.group.start();
    return replica;
  }

  Replica replica(String name) {
    return replicas.get(name);
  }

  /** How many shard terms each replica's shard callbacks started, in order of start. */
  List<Integer> callbackStarts() {
    List<Integer> starts = new ArrayList<>();
    replicas.values().forEach(r -> starts.add(r.callbackStarts));
    return starts;
  }

  /** What reached the callbacks of a shard other than the term's own; empty when routed right. */
  List<String> misrouted() {
    List<String> misrouted = new ArrayList<>();
    replicas.values().forEach(r -> misrouted.addAll(r.misrouted));
    return misrouted;
  }

  /** How many shards each replica leads, in order of start. */
  List<Integer> counts() {
    List<Integer> counts = new ArrayList<>();
    replicas.values().forEach(r -> counts.add(r.leading()));
    return counts;
  }

  /** Whether every shard has a leader and the given replicas lead ⌊N/R⌋ or ⌈N/R⌉ each. */
  boolean balanced(List<String> live) {
    int total = 0;
    for (String name : live) {
      int led = replicas.get(name).leading();
      if (led < shards / live.size() || led > (shards + live.size() - 1) / live.size()) {
        return false;
      }
      total += led;
    }
    return total == shards;
  }

  /** Balanced, and every live replica sees the same members: the live replicas, up to the slots. */
  boolean settled(List<String> live) {
    if (!balanced(live)) {
      return false;
    }
    // one member slot per shard by default: replicas beyond that many wait as standbys
    java.util.Set<String> seen = replicas.get(live.get(0)).group.members();
    return live.containsAll(seen)
        && seen.size() == Math.min(live.size(), shards)
        && live.stream().allMatch(name -> replicas.get(name).group.members().equals(seen));
  }

  /** Advances until {@link #settled}, or fails describing what each live replica sees. */
  void advanceUntilSettled(List<String> live, Duration limit) {
    try {
      advanceUntil(() -> settled(live), limit);
    } catch (AssertionError e) {
      StringBuilder seen = new StringBuilder("not settled within " + limit + ": live " + live);
      for (String name : live) {
        ShardGroup g = replicas.get(name).group;
        seen.append("; ")
            .append(name)
            .append(" leads ")
            .append(g.leading())
            .append(", sees members ")
            .append(g.members())
            .append(" and leaders ")
            .append(g.leaders());
      }
      throw new AssertionError(seen.toString(), e);
    }
  }

  Duration advanceUntil(java.util.function.BooleanSupplier condition, Duration limit) {
    return time.advanceUntil(condition, limit);
  }

  /** The longest time any one shard went without a leader in [fromNanos, toNanos). */
  Duration longestLeaderless(long fromNanos, long toNanos) {
    Duration longest = Duration.ZERO;
    for (LeadershipTimeline timeline : timelines.values()) {
      Duration gap = timeline.leaderlessTime(fromNanos, toNanos);
      if (gap.compareTo(longest) > 0) {
        longest = gap;
      }
    }
    return longest;
  }

  /** Fails unless every shard had at most one leader at every instant. */
  void assertNoOverlapPerShard() {
    timelines.forEach(
        (lock, timeline) -> {
          try {
            timeline.assertNoOverlap();
          } catch (AssertionError e) {
            throw new AssertionError(lock + ": " + e.getMessage(), e);
          }
        });
  }

  void closeAll() {
    for (Replica r : replicas.values()) {
      r.reconnect();
      var closing = r.group.closeAsync();
      time.advanceUntil(closing::isDone, Duration.ofMinutes(1));
    }
    time.advance(Duration.ofMinutes(1));
    time.assertNoMoreTasks();
  }
}
