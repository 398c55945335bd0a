package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * 50 VirtualMachineNetworkConfigs with 4 NICs each, created from 5 threads at once, while two
 * controller replicas run with 4 workers each; the leader is closed when 40 addresses are out and
 * the other replica finishes. No address may go to two MACs, and the pool's table and counts must
 * match what the configs report.
 */
@KubeTest
class ConcurrentAllocationIT {
  private static final int CONFIGS = 50;
  private static final int NICS = 4;

  @Test
  void twoHundredConcurrentAllocationsAcrossAHandoverHandOutEachAddressOnce(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String ns = namespace.name();
    try (ControllerHarness harness = ControllerHarness.create(cluster, "concurrency-it")) {
      harness.start("replica-a", 4);
      harness.start("replica-b", 4);
      IPPoolController first = harness.awaitLeader(Duration.ofSeconds(30));
      IPPool pool = ControllerHarness.pool(ns, "big", 41);
      pool.getSpec().getIpv4Config().getPool().exclude(List.of("10.41.0.100"));
      harness.create(pool);
      Await.until(
          "the pool registers",
          Duration.ofSeconds(30),
          () ->
              harness.read(ns, "big").getStatus() != null
                  && harness
                      .read(ns, "big")
                      .getStatus()
                      .condition(PoolCondition.REGISTERED)
                      .map(PoolCondition::isTrue)
                      .orElse(false));
      String network = ns + "/big";

      long start = System.nanoTime();
      ExecutorService creators = Executors.newFixedThreadPool(5);
      List<Future<?>> created = new ArrayList<>();
      for (int vm = 0; vm < CONFIGS / 2; vm++) {
        created.add(creators.submit(create(harness, ns, network, vm)));
      }
      Await.until(
          "the first leader has handed out 40 addresses",
          Duration.ofSeconds(60),
          () -> first.stats().addressesAllocated.get() >= 40);
      long closing = System.nanoTime();
      harness.stop(first.identity());
      long closed = System.nanoTime();
      long byFirst = first.stats().addressesAllocated.get();
      for (int vm = CONFIGS / 2; vm < CONFIGS; vm++) {
        created.add(creators.submit(create(harness, ns, network, vm)));
      }
      for (Future<?> f : created) {
        f.get();
      }
      creators.shutdown();
      IPPoolController second = harness.awaitLeader(Duration.ofSeconds(30));
      long led = System.nanoTime();

      Await.until(
          "all 50 configs are Allocated",
          Duration.ofSeconds(180),
          () -> IntStream.range(0, CONFIGS).allMatch(vm -> allocated(harness, ns, vm)));
      long done = System.nanoTime();

      Map<String, String> macByIp = new HashMap<>();
      Set<String> macs = new HashSet<>();
      for (int vm = 0; vm < CONFIGS; vm++) {
        for (NetworkConfigStatus s :
            harness.readConfig(ns, name(vm)).getStatus().getNetworkConfigs()) {
          assertTrue(macs.add(s.getMacAddress()));
          String previous = macByIp.put(s.getAllocatedIPAddress(), s.getMacAddress());
          assertEquals(null, previous, s.getAllocatedIPAddress() + " was given to two MACs");
        }
      }
      assertEquals(CONFIGS * NICS, macByIp.size());
      IPv4Status table = harness.read(ns, "big").getStatus().getIpv4();
      Map<String, String> tableMacs = new HashMap<>(table.getAllocated());
      tableMacs.values().removeIf(IPv4Status::isMarker);
      assertEquals(macByIp, tableMacs, "the pool's table is what the configs report");
      assertEquals(200, table.getUsed());
      assertEquals(241 - 1 - 200, table.getAvailable());
      assertTrue(
          !macByIp.containsKey("10.41.0.100")
              && !macByIp.containsKey("10.41.0.1")
              && !macByIp.containsKey("10.41.0.2"));
      assertTrue(
          byFirst < 200 && second.stats().addressesAllocated.get() > 0,
          "both leaders allocated: first "
              + byFirst
              + ", second "
              + second.stats().addressesAllocated.get());

      System.out.printf(
          "RESULT concurrent-allocations: 200 addresses in %d ms; first leader %d"
              + " (%s), second %d (%s); close() took %d ms, next leader after %d ms; conflicts"
              + " retried %d + %d; allocation writes %d + %d%n",
          (done - start) / 1_000_000,
          byFirst,
          first.stats(),
          second.stats().addressesAllocated.get(),
          second.stats(),
          (closed - closing) / 1_000_000,
          (led - closing) / 1_000_000,
          first.stats().conflictsRetried.get(),
          second.stats().conflictsRetried.get(),
          first.stats().allocationWrites.get(),
          second.stats().allocationWrites.get());
    }
  }

  private static String name(int vm) {
    return String.format("vm-%02d", vm);
  }

  private static Runnable create(ControllerHarness harness, String ns, String network, int vm) {
    return () -> {
      List<NetworkConfig> nics = new ArrayList<>();
      for (int n = 0; n < NICS; n++) {
        nics.add(ControllerHarness.nic(network, String.format("52:54:00:41:%02x:%02x", vm, n)));
      }
      try {
        harness.create(ControllerHarness.vmConfig(ns, name(vm), nics));
      } catch (Exception e) {
        throw new IllegalStateException("cannot create " + name(vm), e);
      }
    };
  }

  private static boolean allocated(ControllerHarness harness, String ns, int vm) {
    return harness.allocated(ns, name(vm));
  }
}
