package dev.elector.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.elector.ConfigProblem;
import dev.elector.ElectorConfigException;
import dev.elector.LeaderCallbacks;
import dev.elector.lock.InMemoryLockStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A shard group's builder reports every problem as data, and refuses a shard without callbacks. */
class ShardGroupBuilderTest {
  private static final LeaderCallbacks CALLBACKS = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  @Test
  void shardGroupProblemsAreDataToo() {
    ElectorConfigException e =
        assertThrows(
            ElectorConfigException.class,
            () -> ShardGroup.newBuilder().group("Pools").shards(0).build());
    assertEquals(
        List.of("group", "shards", "locks", "callbacks"),
        e.problems().stream().map(ConfigProblem::setting).toList());
    assertEquals("\"Pools\"", e.problems().get(0).value());
    assertEquals("0", e.problems().get(1).value());
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
