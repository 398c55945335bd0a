package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.PoolCondition;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every kind of bad IPPool input becomes a Registered=False condition with its reason and a message
 * naming the fix; the pool is written once, gets no agent, and is not retried in a loop.
 */
@KubeTest
class PoolValidationIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ControllerHarness harness;
  private static String ns;

  @BeforeAll
  static void start(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    harness = ControllerHarness.create(cluster, "pool-validation-it");
    ns = namespace.name();
    harness.start("replica-a", 2);
    harness.awaitLeader(WAIT);
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  /** Creates a pool changed by {@code breakIt} and checks how it is reported. */
  private static PoolCondition rejected(
      String name, int subnet, Consumer<IPPool> breakIt, String reason, String inMessage)
      throws Exception {
    IPPool pool = ControllerHarness.pool(ns, name, subnet);
    breakIt.accept(pool);
    harness.create(pool);
    Await.until(
        name + " is reported invalid",
        WAIT,
        () -> {
          IPPool read = harness.read(ns, name);
          return read.getStatus() != null
              && read.getStatus()
                  .condition(PoolCondition.REGISTERED)
                  .map(c -> "False".equals(c.getStatus()))
                  .orElse(false);
        });
    harness.awaitIdle(WAIT);
    IPPool read = harness.read(ns, name);
    PoolCondition registered = read.getStatus().condition(PoolCondition.REGISTERED).orElseThrow();
    assertEquals(reason, registered.getReason());
    assertTrue(registered.getMessage().contains(inMessage), registered.getMessage());
    assertEquals(
        "PoolInvalid",
        read.getStatus().condition(PoolCondition.CACHE_READY).orElseThrow().getReason());
    assertEquals(
        "NoAgent", read.getStatus().condition(PoolCondition.AGENT_READY).orElseThrow().getReason());
    assertTrue(harness.absent(() -> harness.agent(ns, name)), "an invalid pool gets no agent");
    IPPoolController leader = harness.awaitLeader(WAIT);
    long statusWrites = leader.stats().poolStatusWrites.get();
    long deploymentWrites = leader.stats().deploymentWrites.get();
    String version = harness.read(ns, name).getMetadata().getResourceVersion();
    harness.reconcileAgain(ns, name, WAIT);
    assertEquals(
        statusWrites,
        leader.stats().poolStatusWrites.get(),
        name + " is not rewritten when reconciled again: " + leader.stats());
    assertEquals(deploymentWrites, leader.stats().deploymentWrites.get());
    assertTrue(
        Long.parseLong(harness.read(ns, name).getMetadata().getResourceVersion())
            > Long.parseLong(version),
        "the touch reached the pool");
    List<ProcessEvent> writes =
        harness.events("replica-a").stream()
            .filter(e -> e.kind().equals("pool_status") && e.get("pool").equals(ns + "/" + name))
            .toList();
    assertEquals(1, writes.size(), "one status write for the bad pool: " + writes);
    return registered;
  }

  @Test
  void anInvalidCidr() throws Exception {
    rejected(
        "bad-cidr",
        21,
        p -> p.getSpec().getIpv4Config().cidr("10.21.0.0/40"),
        "InvalidCIDR",
        "spec.ipv4Config.cidr '10.21.0.0/40' is not an IPv4 CIDR");
  }

  @Test
  void aServerIPOutsideTheCidr() throws Exception {
    rejected(
        "bad-server",
        22,
        p -> p.getSpec().getIpv4Config().serverIP("10.99.0.2"),
        "ServerIPOutsideCIDR",
        "serverIP 10.99.0.2 is outside spec.ipv4Config.cidr");
  }

  @Test
  void aRouterOutsideTheCidr() throws Exception {
    rejected(
        "bad-router",
        23,
        p -> p.getSpec().getIpv4Config().router("10.99.0.1"),
        "RouterOutsideCIDR",
        "router 10.99.0.1 is outside");
  }

  @Test
  void aRangeOutsideTheCidr() throws Exception {
    rejected(
        "bad-range",
        24,
        p -> p.getSpec().getIpv4Config().getPool().end("10.24.1.250"),
        "PoolRangeOutsideCIDR",
        "pool.end 10.24.1.250 is outside");
  }

  @Test
  void aReversedRange() throws Exception {
    rejected(
        "reversed",
        25,
        p -> p.getSpec().getIpv4Config().getPool().start("10.25.0.251"),
        "PoolRangeReversed",
        "pool.start 10.25.0.251 is after pool.end 10.25.0.250; swap them");
  }

  @Test
  void anExclusionOutsideTheRange() throws Exception {
    rejected(
        "bad-exclude",
        26,
        p -> p.getSpec().getIpv4Config().getPool().exclude(List.of("10.26.0.5")),
        "ExclusionOutsideRange",
        "exclude entry 10.26.0.5 is outside the pool range 10.26.0.10-10.26.0.250");
  }

  @Test
  void fixingTheSpecRegistersThePool() throws Exception {
    rejected(
        "fixed",
        27,
        p -> p.getSpec().getIpv4Config().getPool().start("10.27.0.251"),
        "PoolRangeReversed",
        "swap them");
    harness.edit(
        harness.read(ns, "fixed"), p -> p.getSpec().getIpv4Config().getPool().start("10.27.0.10"));
    Await.until(
        "the fixed pool registers and gets its agent",
        WAIT,
        () -> {
          IPPool read = harness.read(ns, "fixed");
          return read.getStatus().condition(PoolCondition.REGISTERED).orElseThrow().isTrue()
              && !harness.absent(() -> harness.agent(ns, "fixed"));
        });
  }
}
