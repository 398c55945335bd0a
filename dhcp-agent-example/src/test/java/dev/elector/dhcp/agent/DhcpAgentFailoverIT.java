package dev.elector.dhcp.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.dhcp.lab.Udhcpc;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkCrds;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end, as in a cluster: agent replicas run as separate JVMs, each in a network namespace of
 * its own with a NIC on one L2 segment (a bridge, as a Multus network), talking to the real API
 * server under the identity and Role a Deployment would have; a VM is a namespace on the same
 * segment running Debian's busybox udhcpc. Leadership moves the server address between the
 * replicas' NICs. Killing a replica deletes its namespace, as a node crash or pod deletion does.
 *
 * <p>Needs root, iproute2, socat and udhcpc (installed by scripts/install-dhcp-client.sh); fails,
 * rather than skips, without them, unless ELECTOR_SKIP_NETNS_TESTS=true.
 */
@KubeTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DhcpAgentFailoverIT {
  private static final String POOL = "lab";
  private static final MacAddress VM = MacAddress.parse("52:54:00:12:34:56");
  private static final MacAddress VM2 = MacAddress.parse("52:54:00:12:34:57");
  private static final MacAddress STRANGER = MacAddress.parse("52:54:00:de:ad:99");
  private static final List<String> TIMINGS =
      List.of("--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms");

  @TempDir static Path work;

  private static NetLab lab;
  private static AgentFixture fixture;
  private static String namespace;
  private static int apiPort;
  private static IPPool pool;
  private static final List<AgentProcess> agents = new ArrayList<>();
  private static NetLab.Host vm;
  private static final Map<String, String> figures = new LinkedHashMap<>();

  @BeforeAll
  static void setUp(KubeCluster cluster, KubeNamespace ns) throws Exception {
    if (NetLab.skipRequested()) {
      Assumptions.abort(NetLab.SKIP_VARIABLE + "=true: network namespace test skipped on request");
    }
    NetLab.prepare("scripts/install-dhcp-client.sh").ifPresent(why -> fail(why));
    namespace = ns.name();
    apiPort = URI.create(cluster.server()).getPort();
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(60));
    fixture = new AgentFixture(cluster, ns);
    pool =
        fixture.createPool(
            POOL, Pools.config().leaseTime(120), Map.of("192.0.2.10", VM.toString()));
    lab = NetLab.create();
    vm = lab.addHost("vm", "eth0", Optional.of(VM));
    agents.add(startAgent("agent-a"));
    agents.add(startAgent("agent-b"));
    leader(Duration.ofSeconds(30));
  }

  @AfterAll
  static void tearDown() {
    if (lab != null) {
      lab.close();
    }
    figures.forEach((k, v) -> System.out.println("FIGURE " + k + " " + v));
  }

  private static AgentProcess startAgent(String name) throws Exception {
    NetLab.Host host = lab.addHost(name, "net1", Optional.empty());
    host.reachLoopback(apiPort);
    KubeIdentity identity = fixture.agentIdentity(name, POOL);
    Path kubeconfig = work.resolve(name + ".kubeconfig");
    Files.writeString(kubeconfig, fixture.cluster().kubeconfigYaml(identity.token()));
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--ippool-ref",
                namespace + "/" + POOL,
                "--nic",
                "net1",
                "--kubeconfig",
                kubeconfig.toString(),
                "--health-addr",
                "127.0.0.1:8080",
                "--expose-leases"));
    flags.addAll(TIMINGS);
    AgentProcess agent =
        AgentProcess.start(name, host, work.resolve(name + ".log"), namespace, flags);
    agent.events().await(e -> e.is("synced"), Duration.ofSeconds(60), "synced");
    return agent;
  }

  /** The one agent serving now; fails if none does within {@code limit}, or two do. */
  private static AgentProcess leader(Duration limit) {
    try {
      List<AgentProcess> serving =
          await("one agent serving")
              .atMost(limit)
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(20))
              .until(
                  () -> {
                    List<AgentProcess> now =
                        agents.stream()
                            .filter(AgentProcess::isAlive)
                            .filter(a -> servingNow(a))
                            .toList();
                    assertTrue(now.size() < 2, "two agents serve at once: " + now);
                    return now;
                  },
                  now -> now.size() == 1);
      return serving.get(0);
    } catch (ConditionTimeoutException e) {
      return fail(
          "no agent serves within "
              + limit
              + ":\n"
              + agents.stream().map(a -> a.events().text()).reduce("", String::concat),
          e);
    }
  }

  /** Serving: a "serving" event after the last "stopped" one. */
  private static boolean servingNow(AgentProcess agent) {
    List<AgentEventLog.Event> events = agent.events().events();
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i).is("serving")) {
        return true;
      }
      if (events.get(i).is("stopped")) {
        return false;
      }
    }
    return false;
  }

  private static AgentProcess follower(AgentProcess leader) {
    return agents.stream().filter(a -> a != leader && a.isAlive()).findFirst().orElseThrow();
  }

  /** Runs udhcpc once (-q) in {@code host}; returns the bound event's variables, if bound. */
  private static Optional<Map<String, String>> dhcpOnce(NetLab.Host host, String tag, int tries)
      throws Exception {
    return new Udhcpc(host, work.resolve("client-" + tag)).once(tries);
  }

  private static long millisSince(long startNanos, AgentEventLog.Event event) {
    return (event.monoNanos() - startNanos) / 1_000_000;
  }

  @Test
  @Order(1)
  void theVmGetsExactlyItsAllocatedAddressWithThePoolsOptionsFromTheLeader() throws Exception {
    AgentProcess leader = leader(Duration.ofSeconds(10));

    Map<String, String> bound =
        dhcpOnce(vm, "first", 5)
            .orElseThrow(
                () -> new AssertionError("no lease; leader output:\n" + leader.events().text()));

    assertEquals("192.0.2.10", bound.get("ip"), bound.toString());
    assertEquals("255.255.255.0", bound.get("subnet"));
    assertEquals("192.0.2.254", bound.get("router"));
    assertEquals("192.0.2.53", bound.get("dns"));
    assertEquals("example.test", bound.get("domain"));
    assertEquals("example.test", bound.get("search"));
    assertEquals("192.0.2.123", bound.get("ntpsrv"));
    assertEquals("120", bound.get("lease"));
    assertEquals("192.0.2.1", bound.get("serverid"));
    assertEquals(
        List.of("192.0.2.1/24"), leader.host().addresses(), "the leader holds the address");
    assertEquals(List.of(), follower(leader).host().addresses(), "the follower does not");
    // A reply is counted, and its event printed, just after it is sent: the client may have it
    // first.
    leader
        .events()
        .await(
            e -> e.is("reply", "kind", "ACKED", "mac", VM.toString()),
            Duration.ofSeconds(5),
            "ACK");
    String metrics = leader.host().run(5, "curl", "-s", "http://127.0.0.1:8080/metrics").output();
    assertTrue(replies(metrics, "offered") >= 1, metrics);
    assertTrue(replies(metrics, "acked") >= 1, metrics);
    assertEquals(0.0, replies(metrics, "naked"), metrics);
  }

  /** The agent's dhcp_agent_replies_total of one kind, from its Prometheus text. */
  private double replies(String metrics, String kind) {
    String prefix =
        "dhcp_agent_replies_total{kind=\"" + kind + "\",pool=\"" + namespace + "/" + POOL + "\"} ";
    return metrics
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix.strip() + " in\n" + metrics));
  }

  @Test
  @Order(2)
  void aMacThePoolDoesNotKnowGetsNothing() throws Exception {
    NetLab.Host stranger = lab.addHost("stranger", "eth0", Optional.of(STRANGER));
    try {
      assertEquals(Optional.empty(), dhcpOnce(stranger, "stranger", 2));
      AgentProcess leader = leader(Duration.ofSeconds(1));
      leader
          .events()
          .await(
              e -> e.is("unknown-client", "mac", STRANGER.toString()),
              Duration.ofSeconds(5),
              "unknown-client");
      assertTrue(
          agents.stream()
              .flatMap(a -> a.events().events().stream())
              .noneMatch(e -> e.is("reply", "mac", STRANGER.toString())));
    } finally {
      stranger.delete();
    }
  }

  @Test
  @Order(3)
  void aNewAllocationIsServedByTheLeaderWithinASecondAndIsInTheFollowersCacheAlready()
      throws Exception {
    AgentProcess leader = leader(Duration.ofSeconds(1));
    AgentProcess follower = follower(leader);

    long written = System.nanoTime();
    pool =
        fixture.writeAllocated(
            fixture.read(POOL), Map.of("192.0.2.10", VM.toString(), "192.0.2.11", VM2.toString()));
    String version = pool.getMetadata().getResourceVersion();
    AgentEventLog.Event atLeader =
        leader
            .events()
            .await(e -> e.is("pool", "rv", version), Duration.ofSeconds(10), "pool " + version);
    AgentEventLog.Event atFollower =
        follower
            .events()
            .await(e -> e.is("pool", "rv", version), Duration.ofSeconds(10), "pool " + version);
    NetLab.Host second = lab.addHost("vm2", "eth0", Optional.of(VM2));
    Map<String, String> bound;
    try {
      bound = dhcpOnce(second, "vm2", 5).orElseThrow();
    } finally {
      second.delete();
    }
    AgentEventLog.Event served =
        leader
            .events()
            .await(
                e -> e.is("reply", "kind", "ACKED", "mac", VM2.toString()),
                Duration.ofSeconds(5),
                "ACK");

    figures.put("update-to-leader-cache-ms", Long.toString(millisSince(written, atLeader)));
    figures.put("update-to-follower-cache-ms", Long.toString(millisSince(written, atFollower)));
    figures.put("update-to-first-ack-ms", Long.toString(millisSince(written, served)));
    assertTrue(millisSince(written, atLeader) < 1_000, figures.toString());
    assertEquals("192.0.2.11", bound.get("ip"));
    String dump = follower.host().run(5, "curl", "-s", "http://127.0.0.1:8080/leases").output();
    assertTrue(dump.contains("\"" + VM2 + "\": \"192.0.2.11\""), dump);
    assertTrue(dump.contains("\"leader\": false"), dump);
  }

  @Test
  @Order(4)
  void aKilledLeaderIsReplacedAndTheVmKeepsItsAddressOnRenewalAndOnANewDiscover() throws Exception {
    AgentProcess old = leader(Duration.ofSeconds(1));
    AgentProcess next = follower(old);
    Udhcpc client = new Udhcpc(vm, work.resolve("client-renew"));
    client.start();
    assertEquals("192.0.2.10", client.await("bound", Duration.ofSeconds(15)).get("ip"));

    long killed = System.nanoTime();
    old.host().delete(); // SIGKILL, and the namespace with its NIC and address vanishes
    AgentEventLog.Event serving =
        next.events().await(e -> e.is("serving"), Duration.ofSeconds(20), "serving after the kill");
    client.renewNow(); // renew now, not at T1
    Map<String, String> renewal = client.await("renew", Duration.ofSeconds(20));
    AgentEventLog.Event renewed =
        next.events()
            .await(
                e -> e.is("reply", "kind", "ACKED", "mac", VM.toString(), "state", "RENEWING"),
                Duration.ofSeconds(5),
                "ACK of the renewal");
    client.close();

    AgentEventLog.Event leading = next.events().first(e -> e.is("leading")).orElseThrow();
    AgentEventLog.Event added = next.events().first(e -> e.is("address-added")).orElseThrow();
    figures.put("kill-to-new-leader-leading-ms", Long.toString(millisSince(killed, leading)));
    figures.put(
        "new-leader-leading-to-address-added-ms",
        Long.toString((added.monoNanos() - leading.monoNanos()) / 1_000_000));
    figures.put(
        "new-leader-address-added-to-serving-ms",
        Long.toString((serving.monoNanos() - added.monoNanos()) / 1_000_000));
    figures.put("kill-to-new-leader-serving-ms", Long.toString(millisSince(killed, serving)));
    figures.put(
        "kill-to-first-answer-of-new-leader-ms",
        Long.toString(millisSince(killed, next.events().first(e -> e.is("reply")).orElseThrow())));
    figures.put("kill-to-renewal-acked-ms", Long.toString(millisSince(killed, renewed)));
    assertEquals("192.0.2.10", renewal.get("ip"));
    assertEquals(List.of("192.0.2.1/24"), next.host().addresses(), "the address moved");

    Map<String, String> rediscovered = dhcpOnce(vm, "rediscover", 5).orElseThrow();
    assertEquals("192.0.2.10", rediscovered.get("ip"));
    assertEquals("192.0.2.1", rediscovered.get("serverid"));
  }

  @Test
  @Order(5)
  void aGracefullyStoppedLeaderGivesTheAddressUpAndAStandbyTakesOverAtOnce() throws Exception {
    agents.add(startAgent("agent-c"));
    AgentProcess old = leader(Duration.ofSeconds(1));
    AgentProcess next = follower(old);

    long stopping = System.nanoTime();
    assertEquals(143, old.terminate(), "a JVM ends with 128 + SIGTERM after its shutdown hooks");
    assertTrue(old.events().first(e -> e.is("closed")).isPresent(), "the agent closed cleanly");
    AgentEventLog.Event serving =
        next.events().await(e -> e.is("serving"), Duration.ofSeconds(10), "serving after SIGTERM");

    figures.put("sigterm-to-new-leader-serving-ms", Long.toString(millisSince(stopping, serving)));
    assertEquals(List.of(), old.host().addresses(), "the old leader removed the address");
    assertEquals(List.of("192.0.2.1/24"), next.host().addresses());
    assertEquals("192.0.2.10", dhcpOnce(vm, "after-sigterm", 5).orElseThrow().get("ip"));
  }

  @Test
  @Order(6)
  void noAddressWasEverHandedToTwoMacsAndNoTwoAgentsServedAtOnce() {
    Map<String, Set<String>> macsByIp = new TreeMap<>();
    List<long[]> terms = new ArrayList<>();
    for (AgentProcess agent : agents) {
      long start = -1;
      for (AgentEventLog.Event e : agent.events().events()) {
        if (e.is("reply")
            && !e.get("ip").equals("-")
            && List.of("OFFERED", "ACKED").contains(e.get("kind"))) {
          macsByIp.computeIfAbsent(e.get("ip"), k -> new TreeSet<>()).add(e.get("mac"));
        }
        if (e.is("leading")) {
          start = e.monoNanos();
        } else if (e.is("stopped") && start >= 0) {
          terms.add(new long[] {start, e.monoNanos()});
          start = -1;
        }
      }
      if (start >= 0) {
        // killed while leading: its term ended at the kill at the latest
        terms.add(new long[] {start, agent.isAlive() ? Long.MAX_VALUE : lastEvent(agent)});
      }
    }
    macsByIp.forEach((ip, macs) -> assertEquals(1, macs.size(), ip + " went to " + macs));
    assertEquals(Set.of(VM.toString()), macsByIp.get("192.0.2.10"));
    assertEquals(Set.of(VM2.toString()), macsByIp.get("192.0.2.11"));
    terms.sort((x, y) -> Long.compare(x[0], y[0]));
    for (int i = 1; i < terms.size(); i++) {
      assertTrue(terms.get(i - 1)[1] <= terms.get(i)[0], "terms overlap: " + i);
    }
    assertNotEquals(0, terms.size());
    assertFalse(figures.isEmpty());
  }

  private static long lastEvent(AgentProcess agent) {
    List<AgentEventLog.Event> events = agent.events().events();
    return events.get(events.size() - 1).monoNanos();
  }
}
