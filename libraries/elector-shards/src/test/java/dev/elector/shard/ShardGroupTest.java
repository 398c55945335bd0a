package dev.elector.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.testkit.LeadershipTimeline;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Three replicas share twelve shards: they settle at 4/4/4, a replica that drops out has its shards
 * split 6/6 within a lease and a margin, and when it returns the group settles at 4/4/4 again,
 * moving only the shards it must; a fourth that joins takes the three let go for it at once, with
 * at most one leader per shard throughout.
 */
class ShardGroupTest {
  private static final Duration LEASE = ElectorConfig.DEFAULT_LEASE_DURATION;

  @Test
  void threeReplicasBalanceTwelveShardsThroughACrashAndARejoin() {
    ShardFixture fixture = new ShardFixture(12, 12);
    fixture.start("a");
    fixture.start("b");
    fixture.start("c");
    List<String> all = List.of("a", "b", "c");

    Duration cold = fixture.advanceUntil(() -> fixture.balanced(all), Duration.ofMinutes(2));
    assertEquals(List.of(4, 4, 4), fixture.counts());
    int coldMoves = fixture.termsStarted;
    assertEquals(12, coldMoves, "each shard was taken once: nobody took more and handed it on");
    assertEquals(
        List.of(4, 4, 4),
        fixture.callbackStarts(),
        "each replica's callbacks started the terms of the four shards it leads");
    fixture.time.advance(Duration.ofMinutes(2));
    assertEquals(coldMoves, fixture.termsStarted, "a settled group makes no moves");

    fixture.replica("c").cutOff();
    Duration split =
        fixture.advanceUntil(() -> fixture.balanced(List.of("a", "b")), Duration.ofMinutes(2));
    assertEquals(List.of(6, 6, 0), fixture.counts());
    int splitMoves = fixture.termsStarted - coldMoves;
    assertEquals(4, splitMoves, "only c's four shards moved");
    assertTrue(
        split.compareTo(LEASE.plus(Duration.ofSeconds(5))) <= 0,
        "c's shards are led again within a lease and a margin: " + split);

    long rejoined = fixture.time.clock().nanos();
    fixture.replica("c").reconnect();
    Duration back = fixture.advanceUntil(() -> fixture.balanced(all), Duration.ofMinutes(2));
    Duration handOver = fixture.longestLeaderless(rejoined, fixture.time.clock().nanos());
    assertEquals(List.of(4, 4, 4), fixture.counts());
    int backMoves = fixture.termsStarted - coldMoves - splitMoves;
    assertEquals(4, backMoves, "c takes back four shards, two from each");
    assertTrue(
        handOver.compareTo(Duration.ofSeconds(1)) < 0,
        "the shards let go for the returning replica move as a graceful hand-over: leaderless "
            + handOver);
    fixture.time.advance(Duration.ofMinutes(2));
    assertEquals(List.of(4, 4, 4), fixture.counts(), "and nothing flaps after");

    long joined = fixture.time.clock().nanos();
    fixture.start("d");
    List<String> four = List.of("a", "b", "c", "d");
    Duration join = fixture.advanceUntil(() -> fixture.balanced(four), Duration.ofMinutes(2));
    Duration joinHandOver = fixture.longestLeaderless(joined, fixture.time.clock().nanos());
    assertEquals(List.of(3, 3, 3, 3), fixture.counts());
    int joinMoves = fixture.termsStarted - coldMoves - splitMoves - backMoves;
    assertEquals(3, joinMoves, "d takes three shards, one from each");
    assertTrue(
        joinHandOver.compareTo(Duration.ofSeconds(1)) < 0,
        "d takes each shard let go for it at once, as a graceful hand-over goes, not after a"
            + " settle period: leaderless "
            + joinHandOver);

    System.out.printf(
        "shards 3x12: balanced %s after a cold start (%d terms), %s after a crash (%d moves),"
            + " %s after the return (%d moves, each shard leaderless at most %s), %s after a"
            + " fourth joins (%d moves, each shard leaderless at most %s)%n",
        cold,
        coldMoves,
        split,
        splitMoves,
        back,
        backMoves,
        handOver,
        join,
        joinMoves,
        joinHandOver);
    assertEquals(List.of(), fixture.misrouted(), "each shard's callbacks hear its own terms only");
    fixture.assertNoOverlapPerShard();
    fixture.closeAll();
  }

  @Test
  void replicasStartedSecondsApartDealTheShardsWithHandOversAtTheFloor() {
    ShardFixture fixture = new ShardFixture(12, 12);
    List<String> all = List.of("a", "b", "c");
    long started = fixture.time.clock().nanos();
    fixture.start("a");
    fixture.time.advance(Duration.ofSeconds(3));
    fixture.start("b");
    fixture.time.advance(Duration.ofSeconds(3));
    fixture.start("c");
    Duration cold = fixture.advanceUntil(() -> fixture.balanced(all), Duration.ofMinutes(2));
    long now = fixture.time.clock().nanos();
    long firstLed = Long.MAX_VALUE;
    Duration moved = Duration.ZERO; // the longest gap of any shard after it was first led
    for (LeadershipTimeline shard : fixture.timelines.values()) {
      long first = shard.terms().get(0).startNanos();
      firstLed = Math.min(firstLed, first);
      Duration gap = shard.leaderlessTime(first, now);
      moved = gap.compareTo(moved) > 0 ? gap : moved;
    }
    assertEquals(List.of(4, 4, 4), fixture.counts());
    System.out.printf(
        "shards 3x12, replicas started 3 s apart: balanced %s after the last start, %d terms"
            + " (12 if each shard was dealt once), first shard led %d ms after the first start,"
            + " a moved shard leaderless at most %s%n",
        cold, fixture.termsStarted, (firstLed - started) / 1_000_000, moved);
    assertTrue(
        moved.compareTo(Duration.ofSeconds(1)) < 0,
        "each shard handed on to a later replica moves as a graceful hand-over: " + moved);
    fixture.assertNoOverlapPerShard();
    fixture.closeAll();
  }
}
