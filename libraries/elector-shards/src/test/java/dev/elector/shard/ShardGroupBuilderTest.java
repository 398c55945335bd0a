package dev.elector.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.elector.ConfigProblem;
import dev.elector.LeaderCallbacks;
import dev.elector.lock.InMemoryLockStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A shard group's builder reports every problem as data, and refuses a shard without callbacks. */
class ShardGroupBuilderTest {
  private static final LeaderCallbacks CALLBACKS = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  @Test
  void shardGroupProblemsAreDataToo() {
    ShardGroup.Builder builder = ShardGroup.newBuilder().group("Pools").shards(0);
    List<ConfigProblem> problems = builder.problems();
    assertEquals(
        List.of("group", "shards", "locks", "callbacks"),
        problems.stream().map(ConfigProblem::setting).toList());
    assertEquals("\"Pools\"", problems.get(0).value());
    assertEquals("0", problems.get(1).value());

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertEquals(
        "Invalid shard group (4 problems):"
            + problems.stream()
                .map(problem -> "\n  - " + problem.message())
                .reduce("", String::concat),
        e.getMessage());
  }

  @Test
  void aShardGroupRefusesAShardWithoutCallbacksNamingTheShard() {
    NullPointerException e =
        assertThrows(
            NullPointerException.class,
            () ->
                ShardGroup.newBuilder()
                    .group("pools")
                    .shards(4)
                    .locks(name -> InMemoryLockStore.create(name).lockFor("me"))
                    .callbacks(shard -> shard == 2 ? nothing() : CALLBACKS)
                    .build());
    assertEquals(
        "callbacks returned null for shard 2; return that shard's LeaderCallbacks", e.getMessage());
  }

  /** What a faulty callbacks function returns for one shard. */
  @SuppressWarnings("NullAway")
  private static LeaderCallbacks nothing() {
    return null;
  }
}
