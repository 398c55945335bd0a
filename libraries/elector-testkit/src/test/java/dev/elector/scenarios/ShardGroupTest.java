package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Three replicas share twelve shards: they settle at 4/4/4, a replica that drops out has its shards
 * split 6/6 within a lease and a margin, and when it returns the group settles at 4/4/4 again,
 * moving only the shards it must, with at most one leader per shard throughout.
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

    fixture.replica("c").reconnect();
    Duration back = fixture.advanceUntil(() -> fixture.balanced(all), Duration.ofMinutes(2));
    assertEquals(List.of(4, 4, 4), fixture.counts());
    int backMoves = fixture.termsStarted - coldMoves - splitMoves;
    assertEquals(4, backMoves, "c takes back four shards, two from each");
    fixture.time.advance(Duration.ofMinutes(2));
    assertEquals(List.of(4, 4, 4), fixture.counts(), "and nothing flaps after");

    System.out.printf(
        "shards 3x12: balanced %s after a cold start (%d terms), %s after a crash (%d moves),"
            + " %s after the return (%d moves)%n",
        cold, coldMoves, split, splitMoves, back, backMoves);
    fixture.assertNoOverlapPerShard();
    fixture.closeAll();
  }
}
