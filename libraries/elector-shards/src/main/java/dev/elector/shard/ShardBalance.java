package dev.elector.shard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which shards a member of a shard group should take and which one it should give up, as a pure
 * function of what it sees: the live members and each shard's live holder. Every member computes
 * the same plan from the same view, so members agree without talking to each other.
 *
 * <p>The rule: with R members and N shards, {@code N mod R} members may lead {@code ⌈N/R⌉} shards
 * and the others {@code ⌊N/R⌋}. The larger quotas go first to the members that already lead ⌈N/R⌉
 * or more, then by identity, so a settled group keeps its assignment. A member above its quota
 * gives up one shard at a time (the highest-numbered). Shards that no member leads are dealt to the
 * members below their quota, a consecutive run to each, by identity; a member takes only the shards
 * dealt to it, so members do not race for them, and a member taking its shards changes no other
 * member's deal, so members that plan at different moments still agree.
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
   * Each member's quota: ⌈N/R⌉ for N mod R members, ⌊N/R⌋ for the others. The larger quotas go
   * first to the members that already lead ⌈N/R⌉ or more (by identity), then to the others by
   * identity. So a settled group keeps its assignment; a member stepping down one shard at a time
   * keeps its quota until it gets there; and a member taking the shards dealt to it never takes a
   * larger quota from another (ranked by how many they lead, a member below ⌈N/R⌉ could pass
   * another by taking a shard, and then both would take the shards of one quota, and one would hand
   * a shard on).
   */
  static Map<String, Integer> quotas(int shards, Map<String, List<Integer>> led) {
    List<String> ranked = new ArrayList<>(led.keySet());
    int ceil = (shards + ranked.size() - 1) / ranked.size();
    ranked.sort(
        Comparator.comparing((String m) -> led.getOrDefault(m, List.of()).size() < ceil)
            .thenComparing(Comparator.naturalOrder()));
    int base = shards / ranked.size();
    int extra = shards % ranked.size();
    Map<String, Integer> quotas = new HashMap<>();
    for (int i = 0; i < ranked.size(); i++) {
      quotas.put(ranked.get(i), base + (i < extra ? 1 : 0));
    }
    return quotas;
  }

  /**
   * The unled shards dealt to {@code me}: the members below their quota, by identity, are dealt
   * consecutive runs of the unled shards, as many as each lacks. A member taking one of its own
   * shards shortens its run by that shard and its lack by one, so nobody else's deal changes, and a
   * member acting on a plan made a moment ago never competes for a shard dealt to another since.
   */
  private static Set<Integer> dealt(
      String me, List<Integer> unled, Map<String, List<Integer>> led, Map<String, Integer> quotas) {
    Set<Integer> mine = new TreeSet<>();
    int next = 0;
    for (Map.Entry<String, List<Integer>> member : new TreeMap<>(led).entrySet()) {
      String taker = member.getKey();
      int lack = Math.max(0, quotas.getOrDefault(taker, 0) - member.getValue().size());
      int end = Math.min(unled.size(), next + lack);
      if (taker.equals(me)) {
        mine.addAll(unled.subList(next, end));
      }
      next = end;
    }
    return mine;
  }
}
