package dev.elector.dhcp.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkCrds;
import dev.elector.ippool.PodRef;
import dev.elector.kube.PodEnvironment;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent against a real API server, in process and in dry-run (no interfaces touched): the
 * initial-sync gate, hot standby, pool updates, readiness, RBAC and graceful handover. The real
 * DHCP client and the failover of a killed leader are in {@link DhcpAgentFailoverIT}.
 */
@KubeTest
class DhcpAgentIT {
  private static final AtomicInteger PORTS = new AtomicInteger(21_067);
  private static final MacAddress VM = MacAddress.parse("52:54:00:aa:00:01");
  private static final MacAddress VM2 = MacAddress.parse("52:54:00:aa:00:02");

  private final List<DhcpAgent> agents = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private AgentFixture fixture;

  @BeforeAll
  static void installCrds(ApiClient admin) throws Exception {
    NetworkCrds.install(admin, Duration.ofSeconds(60));
  }

  @AfterEach
  void closeAgents() {
    agents.forEach(DhcpAgent::close);
  }

  private AgentFixture fixture(KubeCluster cluster, KubeNamespace namespace) {
    fixture = new AgentFixture(cluster, namespace);
    return fixture;
  }

  private record Running(DhcpAgent agent, AgentEventLog events) {}

  private Running start(String name, String pool, KubeIdentity identity) throws Exception {
    AgentConfig config =
        AgentConfig.parse(
            new String[] {
              "--ippool-ref",
              fixture.namespace().name() + "/" + pool,
              "--dry-run",
              "--identity",
              name,
              "--health-addr",
              "127.0.0.1:0",
              "--expose-leases",
              "--dhcp-port",
              Integer.toString(PORTS.getAndIncrement()),
              "--lease-duration",
              "3s",
              "--renew-deadline",
              "2s",
              "--retry-period",
              "500ms"
            },
            // as the Deployment's Downward API and image variable set them
            Map.of(
                "POD_NAMESPACE",
                fixture.namespace().name(),
                "POD_NAME",
                name,
                "POD_UID",
                "uid-" + name,
                "AGENT_IMAGE",
                "dhcp-agent:test"));
    AgentEventLog.InMemory log = AgentEventLog.inMemory(name);
    DhcpAgent agent =
        DhcpAgent.start(
            config,
            identity.client(),
            PodEnvironment.of(
                Map.of("POD_NAMESPACE", fixture.namespace().name()), Map.of(), name, "x"),
            new PrintStream(log.sink(), true, StandardCharsets.UTF_8));
    agents.add(agent);
    return new Running(agent, log.log());
  }

  /**
   * Waits until the pool's status.agentPodRef names {@code agent}'s pod, as its leader wrote it.
   */
  private void awaitAgentPodRef(String pool, String agent) {
    PodRef wanted =
        new PodRef()
            .namespace(fixture.namespace().name())
            .name(agent)
            .uid("uid-" + agent)
            .image("dhcp-agent:test");
    await("status.agentPodRef of " + pool + " names " + agent)
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> fixture.read(pool).getStatus(),
            status -> status != null && wanted.equals(status.getAgentPodRef()));
  }

  /** The value of client-go's leader gauge on the agent's /metrics, for its lock and identity. */
  private double leaderGauge(DhcpAgent agent, String identity) throws Exception {
    HttpResponse<String> metrics = get(agent, "/metrics");
    assertEquals(200, metrics.statusCode());
    List<String> lines =
        metrics.body().lines().filter(l -> l.startsWith("leader_election_master_status{")).toList();
    assertEquals(1, lines.size(), metrics.body());
    String line = lines.get(0);
    assertTrue(
        line.contains("identity=\"" + identity + "\"")
            && line.contains("name=\"dhcp-agent." + fixture.namespace().name() + "."),
        "identity and lock name: " + line);
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  private HttpResponse<String> get(DhcpAgent agent, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.healthPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aReplicaLeadsOnlyWithItsCacheLoadedAndThenServesTheAllocationTable(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    fixture(cluster, namespace)
        .createPool("gate", Pools.config(), Map.of("192.0.2.10", VM.toString()));
    Running a = start("agent-a", "gate", fixture.agentIdentity("agent-a", "gate"));

    AgentEventLog.Event serving =
        a.events().await(e -> e.is("serving"), Duration.ofSeconds(20), "serving");

    AgentEventLog.Event synced = a.events().first(e -> e.is("synced")).orElseThrow();
    AgentEventLog.Event leading = a.events().first(e -> e.is("leading")).orElseThrow();
    assertTrue(
        synced.monoNanos() <= leading.monoNanos(), "synced before leading: " + a.events().text());
    assertEquals("1", synced.get("leases"));
    assertEquals("192.0.2.1", serving.get("serverIp"));
    assertEquals(
        Ipv4Address.parse("192.0.2.10"), a.agent().cache().leaseFor(VM).orElseThrow().ip());
    assertEquals(200, get(a.agent(), "/readyz").statusCode());
    assertEquals(200, get(a.agent(), "/healthz").statusCode());
    String leases = get(a.agent(), "/leases").body();
    assertTrue(leases.contains("\"52:54:00:aa:00:01\": \"192.0.2.10\""), leases);
    assertTrue(leases.contains("\"leader\": true"), leases);
    assertTrue(
        new CoordinationV1Api(cluster.admin())
            .readNamespacedLease(AgentFixture.lockName(namespace.name(), "gate"), namespace.name())
            .execute()
            .getSpec()
            .getHolderIdentity()
            .equals("agent-a"),
        "the Lease is in the agent's own namespace");
  }

  @Test
  void anAllocationAddedToThePoolReachesTheLeaderWithinASecondAndTheFollowerToo(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    IPPool pool =
        fixture(cluster, namespace)
            .createPool("standby", Pools.config(), Map.of("192.0.2.10", VM.toString()));
    Running a = start("agent-a", "standby", fixture.agentIdentity("agent-a", "standby"));
    a.events().await(e -> e.is("serving"), Duration.ofSeconds(20), "serving");
    Running b = start("agent-b", "standby", fixture.agentIdentity("agent-b", "standby"));
    b.events().await(e -> e.is("synced"), Duration.ofSeconds(20), "synced");

    long written = System.nanoTime();
    IPPool updated =
        fixture.writeAllocated(
            pool, Map.of("192.0.2.10", VM.toString(), "192.0.2.11", VM2.toString()));
    String version = updated.getMetadata().getResourceVersion();

    AgentEventLog.Event atLeader =
        a.events()
            .await(e -> e.is("pool", "rv", version), Duration.ofSeconds(10), "pool rv=" + version);
    AgentEventLog.Event atFollower =
        b.events()
            .await(e -> e.is("pool", "rv", version), Duration.ofSeconds(10), "pool rv=" + version);
    long leaderMillis = (atLeader.monoNanos() - written) / 1_000_000;
    long followerMillis = (atFollower.monoNanos() - written) / 1_000_000;
    System.out.printf(
        "FIGURE update-to-cache leader=%d ms follower=%d ms%n", leaderMillis, followerMillis);

    assertTrue(leaderMillis < 1_000, "the leader took " + leaderMillis + " ms");
    assertEquals(
        Ipv4Address.parse("192.0.2.11"), a.agent().cache().leaseFor(VM2).orElseThrow().ip());
    assertEquals(
        Ipv4Address.parse("192.0.2.11"), b.agent().cache().leaseFor(VM2).orElseThrow().ip());
    assertFalse(b.agent().isLeader());
    assertTrue(b.events().first(e -> e.is("serving")).isEmpty(), "a follower never serves");
  }

  @Test
  void aPoolCreatedAfterTheAgentIsServedOnceItExists(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    fixture(cluster, namespace);
    Running a = start("agent-a", "later", fixture.agentIdentity("agent-a", "later"));
    a.events().await(e -> e.is("synced"), Duration.ofSeconds(20), "synced");
    HttpResponse<String> notYet = get(a.agent(), "/readyz");
    assertEquals(503, notYet.statusCode());
    assertTrue(notYet.body().contains("does not exist"), notYet.body());

    fixture.createPool("later", Pools.config(), Map.of("192.0.2.10", VM.toString()));

    a.events().await(e -> e.is("serving"), Duration.ofSeconds(20), "serving");
    assertEquals(200, get(a.agent(), "/readyz").statusCode());
  }

  @Test
  void aPoolThatCannotBeServedKeepsTheAgentUnreadyAndSaysWhy(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    fixture(cluster, namespace).createPool("broken", Pools.config().serverIP("10.0.0.1"), Map.of());
    Running a = start("agent-a", "broken", fixture.agentIdentity("agent-a", "broken"));
    a.events().await(e -> e.is("leading"), Duration.ofSeconds(20), "leading");

    HttpResponse<String> ready = get(a.agent(), "/readyz");
    assertEquals(503, ready.statusCode());
    assertTrue(
        ready.body().contains("serverIP 10.0.0.1 is outside cidr 192.0.2.0/24"), ready.body());
    assertTrue(a.events().first(e -> e.is("serving")).isEmpty(), a.events().text());
  }

  @Test
  void anAgentThatMayNotReadThePoolNeverLeads(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    fixture(cluster, namespace).createPool("denied", Pools.config(), Map.of());
    Running a = start("agent-a", "denied", fixture.identityWithout("agent-a", "denied", "ippools"));

    Await.until(
        "the agent reports it is not synced",
        Duration.ofSeconds(10),
        () -> get(a.agent(), "/readyz").body().contains("initial sync"));
    // The pool's list is refused again and again, with back-off; an elector that did not wait
    // for the sync would have read the lock at once on start, long before the third refusal.
    await("three refused attempts to list the pool")
        .atMost(Duration.ofSeconds(30))
        .until(() -> a.agent().poolFailures() >= 3);

    assertEquals(
        0,
        a.agent().electorStats().totalCalls(),
        "the elector never touched the lock: " + a.agent().electorStats());
    assertFalse(a.agent().isLeader());
    assertTrue(
        get(a.agent(), "/healthz").body().contains("waiting for the readiness gate"),
        get(a.agent(), "/healthz").body());
    assertTrue(a.events().first(e -> e.is("leading")).isEmpty(), a.events().text());
    assertEquals(200, get(a.agent(), "/healthz").statusCode(), "waiting is healthy, not a crash");
  }

  @Test
  void aGracefulCloseHandsTheServerOverAtOnce(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    fixture(cluster, namespace)
        .createPool("handover", Pools.config(), Map.of("192.0.2.10", VM.toString()));
    Running a = start("agent-a", "handover", fixture.agentIdentity("agent-a", "handover"));
    a.events().await(e -> e.is("serving"), Duration.ofSeconds(20), "serving");
    awaitAgentPodRef("handover", "agent-a");
    Running b = start("agent-b", "handover", fixture.agentIdentity("agent-b", "handover"));
    b.events().await(e -> e.is("synced"), Duration.ofSeconds(20), "synced");
    assertEquals(1.0, leaderGauge(a.agent(), "agent-a"), "client-go's gauge on /metrics");
    await("agent-b's /metrics shows it following")
        .atMost(Duration.ofSeconds(10))
        .until(() -> leaderGauge(b.agent(), "agent-b"), value -> value == 0.0);

    long closing = System.nanoTime();
    a.agent().close();
    AgentEventLog.Event bServes =
        b.events().await(e -> e.is("serving"), Duration.ofSeconds(10), "serving");
    await("agent-b's leader gauge turns 1")
        .atMost(Duration.ofSeconds(5))
        .until(() -> leaderGauge(b.agent(), "agent-b"), value -> value == 1.0);
    String scrape = get(b.agent(), "/metrics").body();
    assertTrue(
        scrape.contains(
            "elector_terms_started_total{identity=\"agent-b\",lock=\"Lease "
                + namespace.name()
                + "/"),
        "elector_* meters: " + scrape);
    System.out.println(
        "RESULT /metrics of the new leader:\n"
            + scrape
                .lines()
                .filter(
                    l ->
                        l.startsWith("leader_election")
                            || l.contains("purpose=\"renew\"")
                            || l.contains("reason=\"closed\"")
                            || l.contains("mode=\"watching\""))
                .collect(java.util.stream.Collectors.joining("\n")));
    awaitAgentPodRef("handover", "agent-b");
    long handoverMillis = (bServes.monoNanos() - closing) / 1_000_000;
    System.out.printf("FIGURE graceful-handover close-to-serving=%d ms%n", handoverMillis);

    AgentEventLog.Event aRemoved = a.events().first(e -> e.is("address-removed")).orElseThrow();
    AgentEventLog.Event aStopped = a.events().first(e -> e.is("stopped")).orElseThrow();
    AgentEventLog.Event bLeading = b.events().first(e -> e.is("leading")).orElseThrow();
    assertTrue(aStopped.monoNanos() < bLeading.monoNanos(), "no overlap of terms");
    assertTrue(
        aRemoved.monoNanos() < bLeading.monoNanos(),
        "the old leader gave the address up before the lock was released");
    assertTrue(
        Long.parseLong(bLeading.get("token"))
            > Long.parseLong(a.events().first(e -> e.is("leading")).orElseThrow().get("token")));
  }
}
