package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.PoolCondition;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Three controller replicas run active-active over six shards: every pool is served, by the replica
 * that leads its shard; one replica is closed and its pools are taken over. Every reconcile is
 * recorded with its writer, shard and fencing token, and the test checks that each ran in the
 * pool's own shard, that no two replicas ever reconciled one pool at the same time, and that a
 * pool's tokens never go back. Prints the figures (time to serve, time to take over).
 */
@KubeTest
class ShardedControllerIT {
  private static final int SHARDS = 6;
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Three replicas; {@code -Dshards.it.replicas=2} for two. */
  private static final List<String> REPLICAS =
      List.of("replica-a", "replica-b", "replica-c")
          .subList(0, Math.max(2, Math.min(3, Integer.getInteger("shards.it.replicas", 3))));

  /** One reconcile of a pool: which replica, in which shard's term, when. */
  record Reconcile(String pool, String identity, int shard, long token, long start, long end) {}

  /** One write of a pool: which replica, in which shard's term, when it was answered. */
  record Write(String pool, String identity, int shard, long token, long at) {}

  private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();
  private final List<Write> writes = new CopyOnWriteArrayList<>();
  private int configs;

  @Test
  void poolsAreSpreadOverTheReplicasAndTakenOverWithOneWriterAtATime(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String ns = namespace.name();
    try (ControllerHarness harness = ControllerHarness.create(cluster, "shards-it")) {
      // one pool per shard, so that every replica leads pools once the group is balanced
      List<String> pools = new ArrayList<>();
      for (int shard = 0; shard < SHARDS; shard++) {
        int wanted = shard;
        int i =
            IntStream.iterate(0, n -> n + 1)
                .filter(n -> ShardRouting.shardOf(ns, "pool-" + n, SHARDS) == wanted)
                .findFirst()
                .orElseThrow();
        pools.add("pool-" + i);
      }
      long started = System.nanoTime();
      Map<String, AtomicBoolean> cuts = new TreeMap<>();
      for (String replica : REPLICAS) {
        cuts.put(replica, new AtomicBoolean());
        harness.start(
            replica,
            2,
            b -> b.shards(SHARDS).reconcileObserver(new Recorder()),
            harness.severableClient(cuts.get(replica)));
      }
      int subnet = 60;
      for (String pool : pools) {
        harness.create(ControllerHarness.pool(ns, pool, subnet++));
        createConfig(harness, ns, "vm-" + pool, pool, 1);
      }
      Await.until("every pool is served", WAIT, () -> served(harness, ns, pools, pools));
      long allServed = System.nanoTime();
      Await.until(
          "each replica leads " + SHARDS / REPLICAS.size() + " shards",
          WAIT,
          () ->
              REPLICAS.stream()
                  .allMatch(
                      r ->
                          harness.controller(r).leadingShards().size()
                              == SHARDS / REPLICAS.size()));
      long balanced = System.nanoTime();
      awaitIdle(harness, REPLICAS);
      assertTrue(
          agentRoleNames(harness, ns).containsAll(pools), "the agents' Role names all pools");
      // each pool's upstream gauge comes from one replica, the leader of its shard
      Map<String, String> scrapes = new TreeMap<>();
      for (String replica : REPLICAS) {
        scrapes.put(replica, ControllerMain.prometheus(harness.controller(replica)).get());
      }
      for (String pool : pools) {
        String row = "ippool=\"" + ns + "/" + pool + "\"";
        List<String> exporting =
            REPLICAS.stream()
                .filter(
                    r ->
                        scrapes
                            .get(r)
                            .lines()
                            .anyMatch(
                                l ->
                                    l.startsWith("vmdhcpcontroller_ippool_used{")
                                        && l.contains(row)))
                .toList();
        List<String> leading =
            REPLICAS.stream()
                .filter(
                    r -> harness.controller(r).leadingShards().contains(shardOf(ns + "/" + pool)))
                .toList();
        assertEquals(leading, exporting, pool + ": the replicas exporting its gauge");
        assertEquals(1, exporting.size(), pool + ": the replicas exporting its gauge");
      }
      Map<String, Set<String>> writers = writersOfPools();
      for (String replica : REPLICAS) {
        assertTrue(
            writers.values().stream().anyMatch(w -> w.contains(replica)),
            replica + " reconciled no pool; writers by pool: " + writers);
      }

      // the replica that keeps the agents' RBAC (shard 0) leaves, with its pools
      String victim =
          REPLICAS.stream()
              .filter(r -> harness.controller(r).leadingShards().contains(0))
              .findFirst()
              .orElseThrow();
      Set<Integer> victimShards = harness.controller(victim).leadingShards();
      List<String> victimPools =
          pools.stream()
              .filter(p -> victimShards.contains(ShardRouting.shardOf(ns, p, SHARDS)))
              .toList();
      List<String> rest = REPLICAS.stream().filter(r -> !r.equals(victim)).toList();
      long closing = System.nanoTime();
      harness.stop(victim);
      awaitEveryShardLed(harness, rest);
      long takenOver = System.nanoTime();
      // the victim's pools are served again: a new VM on each gets an address
      for (String pool : victimPools) {
        createConfig(harness, ns, "vm2-" + pool, pool, 2);
      }
      // and a new pool in shard 0 gets its agent and its rules in the agents' Role
      int n = 1000;
      while (ShardRouting.shardOf(ns, "pool-" + n, SHARDS) != 0) {
        n++;
      }
      String late = "pool-" + n;
      harness.create(ControllerHarness.pool(ns, late, subnet));
      List<String> after = new ArrayList<>(pools);
      after.add(late);
      Await.until(
          "the closed replica's pools are served again",
          WAIT,
          () ->
              victimPools.stream().allMatch(p -> harness.allocated(ns, "vm2-" + p))
                  && served(harness, ns, after, pools)
                  && agentRoleNames(harness, ns).contains(late));
      long servedAgain = System.nanoTime();
      awaitIdle(harness, rest);

      // with three replicas, one of the two left is cut off from the API server: it can neither
      // renew nor release, so the last one takes its shards once their leases expire
      String cutFigures = "";
      List<String> severedPools = List.of();
      String severed = null;
      if (rest.size() >= 2) {
        severed = rest.get(0);
        Set<Integer> severedShards = harness.controller(severed).leadingShards();
        severedPools =
            after.stream().filter(p -> severedShards.contains(shardOf(ns + "/" + p))).toList();
        List<String> last = rest.subList(1, rest.size());
        long cutAt = System.nanoTime();
        cuts.get(severed).set(true);
        awaitEveryShardLed(harness, last);
        long ledAfterCut = System.nanoTime();
        for (String pool : severedPools) {
          createConfig(harness, ns, "vm3-" + pool, pool, 3);
        }
        List<String> cutPools = severedPools;
        Await.until(
            "the cut-off replica's pools are served again",
            WAIT,
            () -> cutPools.stream().allMatch(p -> harness.allocated(ns, "vm3-" + p)));
        long servedAfterCut = System.nanoTime();
        awaitIdle(harness, last);
        cutFigures =
            String.format(
                "; %s cut off (shards %s, pools %s): its shards led by the last replica after %d"
                    + " ms, its pools serving new VMs after %d ms",
                severed,
                severedShards,
                severedPools,
                millis(ledAfterCut - cutAt),
                millis(servedAfterCut - cutAt));
        cuts.get(severed).set(false);
        harness.stop(severed);
      }

      System.out.printf(
          "FIGURES sharded controller: %d replicas, %d shards, %d pools: all served %d ms after"
              + " start, balanced after %d ms; %s closed (shards %s, pools %s): its shards led by"
              + " the others after %d ms, its pools serving new VMs after %d ms%s%n",
          REPLICAS.size(),
          SHARDS,
          pools.size(),
          millis(allServed - started),
          millis(balanced - started),
          victim,
          victimShards,
          victimPools,
          millis(takenOver - closing),
          millis(servedAgain - closing),
          cutFigures);

      assertOneWriterAtATime(ns, after.size());
      Map<String, Set<String>> writersAfter = writersOfPools();
      for (String pool : victimPools) {
        Set<String> of = writersAfter.get(ns + "/" + pool);
        assertTrue(
            of.contains(victim) && of.stream().anyMatch(rest::contains),
            pool + " was written by " + of + ": by " + victim + " and then by another replica");
      }
      for (String pool : severedPools) {
        Set<String> of = writersAfter.get(ns + "/" + pool);
        String cutOff = severed;
        assertTrue(
            of.contains(cutOff) && of.size() > 1,
            pool + " was written by " + of + ": by " + cutOff + " and then by another replica");
      }
    }
  }

  /** Records the pool reconciles and pool writes of every replica. */
  private final class Recorder implements ReconcileObserver {
    @Override
    public void reconciled(
        String kind, String key, int shard, dev.elector.Term term, long start, long end) {
      if (kind.equals("IPPool")) {
        reconciles.add(new Reconcile(key, term.identity(), shard, term.fencingToken(), start, end));
      }
    }

    @Override
    public void poolWritten(String key, int shard, dev.elector.Term term, long nanos) {
      writes.add(new Write(key, term.identity(), shard, term.fencingToken(), nanos));
    }
  }

  /**
   * Each pool reconcile and each pool write was made in the pool's shard; per pool, reconciles by
   * different replicas never overlap in time, and writes never go back to an older term (nor
   * interleave: one term's writes form one run).
   */
  private void assertOneWriterAtATime(String ns, int pools) {
    Map<String, List<Reconcile>> byPool = new TreeMap<>();
    // the informers are cluster-wide: pools that other tests left are reconciled too
    for (Reconcile r : reconciles) {
      if (!r.pool().startsWith(ns + "/")) {
        continue;
      }
      assertEquals(shardOf(r.pool()), r.shard(), "reconcile in another pool's shard: " + r);
      byPool.computeIfAbsent(r.pool(), k -> new ArrayList<>()).add(r);
    }
    assertEquals(pools, byPool.size(), "reconciles of every pool: " + byPool.keySet());
    for (List<Reconcile> list : byPool.values()) {
      list.sort(Comparator.comparingLong(Reconcile::start));
      for (int i = 0; i < list.size(); i++) {
        Reconcile a = list.get(i);
        for (int j = i + 1; j < list.size() && list.get(j).start() < a.end(); j++) {
          Reconcile b = list.get(j);
          assertEquals(
              a.identity(),
              b.identity(),
              "two replicas reconciled one pool at once: " + a + ", " + b);
        }
      }
    }
    Map<String, List<Write>> writesByPool = new TreeMap<>();
    for (Write w : writes) {
      if (!w.pool().startsWith(ns + "/")) {
        continue;
      }
      assertEquals(shardOf(w.pool()), w.shard(), "write in another pool's shard: " + w);
      writesByPool.computeIfAbsent(w.pool(), k -> new ArrayList<>()).add(w);
    }
    assertEquals(pools, writesByPool.size(), "writes of every pool: " + writesByPool.keySet());
    for (List<Write> list : writesByPool.values()) {
      list.sort(Comparator.comparingLong(Write::at));
      for (int i = 1; i < list.size(); i++) {
        Write before = list.get(i - 1);
        Write now = list.get(i);
        assertTrue(
            now.token() > before.token()
                || (now.token() == before.token() && now.identity().equals(before.identity())),
            "a pool written by an older term, or by two writers in turn: "
                + before
                + " then "
                + now);
      }
    }
  }

  private static int shardOf(String pool) {
    String[] nsName = pool.split("/");
    return ShardRouting.shardOf(nsName[0], nsName[1], SHARDS);
  }

  /** By pool key, the replicas that reconciled or wrote it. */
  private Map<String, Set<String>> writersOfPools() {
    Map<String, Set<String>> writers = new TreeMap<>();
    for (Reconcile r : reconciles) {
      writers.computeIfAbsent(r.pool(), k -> new TreeSet<>()).add(r.identity());
    }
    for (Write w : writes) {
      writers.computeIfAbsent(w.pool(), k -> new TreeSet<>()).add(w.identity());
    }
    return writers;
  }

  private void createConfig(ControllerHarness harness, String ns, String name, String pool, int n)
      throws ApiException {
    String mac = String.format("52:54:00:00:%02x:%02x", n, configs++);
    harness.create(
        ControllerHarness.vmConfig(ns, name, List.of(ControllerHarness.nic(ns + "/" + pool, mac))));
  }

  /**
   * Every pool has its agent Deployment and is Registered, and the first VM of each pool of {@code
   * withVm} has an address.
   */
  private static boolean served(
      ControllerHarness harness, String ns, List<String> pools, List<String> withVm) {
    for (String pool : pools) {
      try {
        harness.agent(ns, pool);
        var status = harness.read(ns, pool).getStatus();
        if (status == null
            || !status
                .condition(PoolCondition.REGISTERED)
                .map(PoolCondition::isTrue)
                .orElse(false)) {
          return false;
        }
      } catch (ApiException e) {
        return false;
      }
      if (withVm.contains(pool) && !harness.allocated(ns, "vm-" + pool)) {
        return false;
      }
    }
    return true;
  }

  /** The pools the agents' Role of {@code ns} names (by their Leases' rules); empty without it. */
  private static Set<String> agentRoleNames(ControllerHarness harness, String ns) {
    Set<String> names = new HashSet<>();
    try {
      V1Role role =
          new RbacAuthorizationV1Api(harness.admin)
              .readNamespacedRole(AgentAccess.NAME, ns)
              .execute();
      role.getRules()
          .forEach(
              r -> names.addAll(r.getResourceNames() == null ? List.of() : r.getResourceNames()));
    } catch (ApiException e) {
      return names;
    }
    return names;
  }

  private static void awaitEveryShardLed(ControllerHarness harness, List<String> replicas) {
    Await.until(
        replicas + " lead every shard",
        WAIT,
        () ->
            replicas.stream().mapToInt(r -> harness.controller(r).leadingShards().size()).sum()
                == SHARDS);
  }

  private static void awaitIdle(ControllerHarness harness, List<String> replicas) {
    Await.until(
        "every replica is idle",
        WAIT,
        () -> replicas.stream().allMatch(r -> harness.controller(r).idleLeader()));
  }

  private static long millis(long nanos) {
    return Duration.ofNanos(nanos).toMillis();
  }
}
