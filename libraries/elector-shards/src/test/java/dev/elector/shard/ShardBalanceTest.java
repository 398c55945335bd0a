package dev.elector.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The balance rule of a shard group, as a pure function of members and holders. */
class ShardBalanceTest {

  @Test
  void aLoneMemberIsDealtEveryShard() {
    ShardBalance.Plan plan = ShardBalance.plan("a", Set.of("a"), unled(12));
    assertEquals(range(0, 12), plan.take());
    assertEquals(-1, plan.release());
    assertEquals(12, plan.quota());
  }

  @Test
  void membersStartingTogetherAreDealtDisjointSharesThatCoverEveryShard() {
    Set<String> members = Set.of("a", "b", "c");
    Set<Integer> all = new TreeSet<>();
    for (String m : members) {
      Set<Integer> take = ShardBalance.plan(m, members, unled(12)).take();
      assertEquals(4, take.size(), m + " is dealt its share: " + take);
      take.forEach(s -> assertTrue(all.add(s), "shard " + s + " dealt twice"));
    }
    assertEquals(range(0, 12), all);
  }

  @Test
  void aSettledGroupStaysAsItIs() {
    List<String> holders = holders("aaaabbbbcccc");
    for (String m : List.of("a", "b", "c")) {
      ShardBalance.Plan plan = ShardBalance.plan(m, Set.of("a", "b", "c"), holders);
      assertEquals(Set.of(), plan.take(), m);
      assertEquals(-1, plan.release(), m);
    }
    // uneven: 12 over 5 is 3,3,2,2,2 and the members that lead 3 keep them
    List<String> uneven = holders("aabbbcccddee");
    Set<String> five = Set.of("a", "b", "c", "d", "e");
    for (String m : five) {
      assertEquals(-1, ShardBalance.plan(m, five, uneven).release(), m);
    }
  }

  @Test
  void aMemberAboveItsQuotaStepsDownFromOneShardAtATime() {
    // d joined: quotas fall to 3, and each of a, b, c gives up its highest shard
    Set<String> members = Set.of("a", "b", "c", "d");
    List<String> holders = holders("aaaabbbbcccc");
    assertEquals(3, ShardBalance.plan("a", members, holders).release());
    assertEquals(7, ShardBalance.plan("b", members, holders).release());
    assertEquals(11, ShardBalance.plan("c", members, holders).release());
    ShardBalance.Plan d = ShardBalance.plan("d", members, holders);
    assertEquals(Set.of(), d.take(), "nothing is free yet");
    assertEquals(3, d.quota());
  }

  @Test
  void shardsOfADepartedMemberAreDealtToTheOthersOnly() {
    List<String> holders = holders("aaaabbbbcccc");
    Set<String> members = Set.of("a", "b");
    Set<Integer> a = ShardBalance.plan("a", members, holders).take();
    Set<Integer> b = ShardBalance.plan("b", members, holders).take();
    assertEquals(2, a.size());
    assertEquals(2, b.size());
    Set<Integer> both = new TreeSet<>(a);
    both.addAll(b);
    assertEquals(range(8, 12), both, "only c's shards move");
  }

  @Test
  void aReplicaThatIsNotAMemberLeadsNothing() {
    ShardBalance.Plan plan = ShardBalance.plan("x", Set.of("a"), holders("aaxx"));
    assertEquals(3, plan.release());
    assertEquals(Set.of(), plan.take());
    assertEquals(0, plan.quota());
  }

  @Test
  void moreMembersThanShardsLeaveTheSurplusAsStandbys() {
    Set<String> members = Set.of("a", "b", "c", "d");
    Set<Integer> dealt = new TreeSet<>();
    int standbys = 0;
    for (String m : members) {
      ShardBalance.Plan plan = ShardBalance.plan(m, members, unled(3));
      dealt.addAll(plan.take());
      standbys += plan.quota() == 0 ? 1 : 0;
    }
    assertEquals(range(0, 3), dealt);
    assertEquals(1, standbys);
  }

  @Test
  void membershipChangesMoveOnlyTheShardsTheyMust() {
    // applying every member's plan until nothing changes, from each membership to the next
    List<String> holders = unled(12);
    assertEquals(12, settle(holders, List.of("a", "b", "c")), "cold start: every shard taken once");
    assertBalanced(holders, List.of("a", "b", "c"));
    assertEquals(3, settle(holders, List.of("a", "b", "c", "d")), "a joiner takes N/(R+1)");
    assertBalanced(holders, List.of("a", "b", "c", "d"));
    holders.replaceAll(h -> h.equals("b") ? "" : h); // b crashed: its leases expired
    assertEquals(3, settle(holders, List.of("a", "c", "d")), "only b's shards move");
    assertBalanced(holders, List.of("a", "c", "d"));
    assertEquals(3, settle(holders, List.of("a", "b", "c", "d")), "b back: 4/4/4 to 3/3/3/3");
    assertBalanced(holders, List.of("a", "b", "c", "d"));
    int moves = settle(holders, List.of("a", "b", "c", "d", "e"));
    assertBalanced(holders, List.of("a", "b", "c", "d", "e"));
    assertEquals(2, moves, "12 over 5 is 3,3,2,2,2: e takes 2");
  }

  @Test
  void aMemberSteppingDownToItsQuotaKeepsItsRankOnTheWay() {
    // 14 over 3 as 4/5/5, then d joins: 14 over 4 is 4,4,3,3, so three shards must move
    Set<String> members = Set.of("a", "b", "c", "d");
    List<String> holders = holders("aaaabbbbbccccc");
    ShardBalance.Plan b = ShardBalance.plan("b", members, holders);
    assertEquals(8, b.release());
    holders.set(8, "");
    // b plans again before a and c have acted: a, b and c all still lead ⌈N/R⌉ = 4 or more, so
    // the larger quotas go to a and b by identity and b keeps 4 (ranked by how many they lead, c
    // at 5 would rank first, a would win the tie, and b would give up a fifth shard that a then
    // takes back)
    assertEquals(-1, ShardBalance.plan("b", members, holders).release());
    assertEquals(3, settle(holders, List.of("a", "b", "c", "d")), "d takes b's and two more");
    assertBalanced(holders, List.of("a", "b", "c", "d"));
  }

  @Test
  void takingADealtShardChangesNoOtherMembersDeal() {
    // members plan at different moments, so one may act on a plan made before another took a
    // shard: a take must leave every other member's deal a subset of what it was, and give nobody
    // a reason to step down, or two members would win one member's quota and one would hand a
    // shard on (a move more than the change needed)
    java.util.SplittableRandom random = new java.util.SplittableRandom(20261205);
    List<String> names = List.of("a", "b", "c", "d", "e", "f");
    for (int trial = 0; trial < 20_000; trial++) {
      int n = 1 + random.nextInt(24);
      Set<String> members = new TreeSet<>(names.subList(0, 1 + random.nextInt(names.size())));
      List<String> holders = new ArrayList<>();
      for (int s = 0; s < n; s++) {
        int pick = random.nextInt(members.size() + 2);
        holders.add(
            pick < members.size()
                ? List.copyOf(members).get(pick)
                : pick == members.size() ? "" : "x");
      }
      Map<String, ShardBalance.Plan> before = new HashMap<>();
      members.forEach(m -> before.put(m, ShardBalance.plan(m, members, holders)));
      for (String taker : members) {
        for (int shard : before.get(taker).take()) {
          List<String> after = new ArrayList<>(holders);
          after.set(shard, taker);
          for (String m : members) {
            ShardBalance.Plan was = before.get(m);
            ShardBalance.Plan now = ShardBalance.plan(m, members, after);
            String state = holders + " with " + taker + " taking " + shard + ", for " + m;
            assertTrue(
                was.take().containsAll(now.take()),
                "deal grew: " + was + " to " + now + " in " + state);
            assertTrue(
                was.release() >= 0 || now.release() < 0, "new step-down: " + now + " in " + state);
          }
        }
      }
    }
  }

  /**
   * Applies the plans of {@code members} (in a shuffled order each round) until none changes
   * anything; returns how many times a shard changed hands (a release and the take after it are one
   * move; a take of a free shard is one).
   */
  private static int settle(List<String> holders, List<String> members) {
    Set<String> live = new LinkedHashSet<>(members);
    List<String> order = new ArrayList<>(members);
    int moves = 0;
    for (int round = 0; round < 100; round++) {
      boolean changed = false;
      Collections.shuffle(order, new java.util.Random(round));
      Map<String, ShardBalance.Plan> plans = new HashMap<>();
      for (String m : order) {
        plans.put(m, ShardBalance.plan(m, live, holders));
      }
      for (String m : order) {
        ShardBalance.Plan plan = plans.get(m);
        if (plan.release() >= 0) {
          holders.set(plan.release(), "");
          changed = true;
        }
        for (int shard : plan.take()) {
          if (holders.get(shard).isEmpty() || !live.contains(holders.get(shard))) {
            holders.set(shard, m);
            moves++;
            changed = true;
          }
        }
      }
      if (!changed) {
        return moves;
      }
    }
    throw new AssertionError("did not settle: " + holders);
  }

  private static void assertBalanced(List<String> holders, List<String> members) {
    int n = holders.size();
    int r = members.size();
    for (String m : members) {
      long led = holders.stream().filter(m::equals).count();
      assertTrue(led == n / r || led == (n + r - 1) / r, m + " leads " + led + ": " + holders);
    }
    assertTrue(holders.stream().allMatch(members::contains), "every shard led: " + holders);
  }

  private static List<String> unled(int n) {
    return new ArrayList<>(Collections.nCopies(n, ""));
  }

  private static List<String> holders(String perShard) {
    List<String> holders = new ArrayList<>();
    for (int i = 0; i < perShard.length(); i++) {
      holders.add(String.valueOf(perShard.charAt(i)));
    }
    return holders;
  }

  private static Set<Integer> range(int from, int to) {
    Set<Integer> set = new TreeSet<>();
    for (int i = from; i < to; i++) {
      set.add(i);
    }
    return set;
  }
}
