package dev.elector;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which shards a member of a shard group should take and which one it should give up, as a pure
 * function of what it sees: the live members and each shard's live holder. Every member computes
 * the same plan from the same view, so members agree without talking to each other.
 *
 * <p>The rule: with R members and N shards, {@code N mod R} members may lead {@code ⌈N/R⌉} shards
 * and the others {@code ⌊N/R⌋}. The larger quotas go to the members that lead most now, counting at
 * most ⌈N/R⌉ each (ties by identity), so a settled group keeps its assignment. A member above its
 * quota gives up one shard at a time (the highest-numbered). Shards that no member leads are dealt,
 * in order, to the members below their quota (by identity, one at a time while a member still lacks
 * some); a member takes only the shards dealt to it, so members do not race for them.
 */
final class ShardBalance {

  /**
   * What a member does next.
   *
   * @param take the shards it should compete for; it holds back from every other shard
   * @param release a shard it leads and should step down from, or -1
   * @param quota how many shards it should lead once settled
   */
  record Plan(Set<Integer> take, int release, int quota) {
    static final Plan NOTHING = new Plan(Set.of(), -1, 0);
  }

  private ShardBalance() {}

  /**
   * The plan of {@code me}, given the live {@code members} and each shard's live {@code holders}
   * (an empty string where none).
   */
  static Plan plan(String me, Set<String> members, List<String> holders) {
    Map<String, List<Integer>> led = new HashMap<>();
    for (String m : members) {
      led.put(m, new ArrayList<>());
    }
    List<Integer> unled = new ArrayList<>();
    for (int shard = 0; shard < holders.size(); shard++) {
      List<Integer> of = led.get(holders.get(shard));
      if (of == null) {
        unled.add(shard);
      } else {
        of.add(shard);
      }
    }
    if (!members.contains(me)) {
      // not (or no longer) a member: lead nothing, giving shards up one at a time
      int release = -1;
      for (int shard = holders.size() - 1; shard >= 0 && release < 0; shard--) {
        if (holders.get(shard).equals(me)) {
          release = shard;
        }
      }
      return new Plan(Set.of(), release, 0);
    }
    Map<String, Integer> quotas = quotas(holders.size(), led);
    List<Integer> mine = led.getOrDefault(me, List.of());
    int quota = quotas.getOrDefault(me, 0);
    if (mine.size() > quota) {
      return new Plan(Set.of(), mine.get(mine.size() - 1), quota);
    }
    return new Plan(dealt(me, unled, led, quotas), -1, quota);
  }

  /**
   * Each member's quota: ⌈N/R⌉ for the N mod R members that lead most (ties by identity). Counts
   * are capped at ⌈N/R⌉ for the ranking: every member above it must come down that far anyway, so
   * which of them keep ⌈N/R⌉ moves no more shards, and a member stepping down one shard at a time
   * keeps its rank until it reaches its quota (uncapped, its rank could flip mid-way and it would
   * give up a shard more than needed).
   */
  static Map<String, Integer> quotas(int shards, Map<String, List<Integer>> led) {
    List<String> ranked = new ArrayList<>(led.keySet());
    int ceil = (shards + ranked.size() - 1) / ranked.size();
    ranked.sort(
        Comparator.comparing((String m) -> Math.min(ceil, led.getOrDefault(m, List.of()).size()))
            .reversed()
            .thenComparing(Comparator.naturalOrder()));
    int base = shards / ranked.size();
    int extra = shards % ranked.size();
    Map<String, Integer> quotas = new HashMap<>();
    for (int i = 0; i < ranked.size(); i++) {
      quotas.put(ranked.get(i), base + (i < extra ? 1 : 0));
    }
    return quotas;
  }

  /** The unled shards dealt to {@code me}: in shard order, round-robin over members below quota. */
  private static Set<Integer> dealt(
      String me, List<Integer> unled, Map<String, List<Integer>> led, Map<String, Integer> quotas) {
    Map<String, Integer> lacking = new HashMap<>();
    for (Map.Entry<String, List<Integer>> e : led.entrySet()) {
      int lack = quotas.getOrDefault(e.getKey(), 0) - e.getValue().size();
      if (lack > 0) {
        lacking.put(e.getKey(), lack);
      }
    }
    List<String> takers = new ArrayList<>(new TreeSet<>(lacking.keySet()));
    Set<Integer> mine = new TreeSet<>();
    int next = 0;
    for (int shard : unled) {
      if (takers.isEmpty()) {
        break;
      }
      String taker = takers.get(next % takers.size());
      if (taker.equals(me)) {
        mine.add(shard);
      }
      int left = lacking.merge(taker, -1, Integer::sum);
      if (left == 0) {
        takers.remove(next % takers.size());
      } else {
        next++;
      }
    }
    return mine;
  }
}
