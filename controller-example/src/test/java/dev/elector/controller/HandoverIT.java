package dev.elector.controller;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The leading controller is a real {@link ControllerMain} process; it is killed with SIGKILL
 * (nothing released) while allocations are pending, and an in-JVM replica finishes them once the
 * Lease expires. Also checks the process's health endpoints and that every line it printed on
 * standard output is an event line (ProcessEvent).
 */
@KubeTest
class HandoverIT {
  @Test
  void aKilledLeadersPendingAllocationsAreFinishedByTheNextLeader(
      KubeCluster cluster, KubeNamespace namespace, @org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    String ns = namespace.name();
    try (ControllerHarness harness = ControllerHarness.create(cluster, "handover-it")) {
      Path kubeconfig = kubeconfigFor(harness, cluster, dir);
      List<String> out = new CopyOnWriteArrayList<>();
      ProcessBuilder command =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  ControllerMain.class.getName(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--identity",
                  "proc-a",
                  "--lease-duration",
                  "3s",
                  "--renew-deadline",
                  "2s",
                  "--retry-period",
                  "500ms",
                  "--health-addr",
                  "127.0.0.1:0",
                  "--agent-image",
                  ControllerHarness.IMAGE)
              .redirectError(dir.resolve("proc-a.err").toFile());
      command.environment().put("POD_NAMESPACE", harness.home.name()); // where the Lease lives
      Process leader = command.start();
      leader.getOutputStream().close();
      Thread reader = new Thread(() -> readLines(leader, out), "proc-a-stdout");
      reader.setDaemon(true);
      reader.start();
      try {
        Await.until(
            "the process leads",
            Duration.ofSeconds(60),
            () ->
                out.stream()
                    .flatMap(l -> ProcessEvent.parse(l).stream())
                    .anyMatch(
                        e -> e.kind().equals("leading") && e.get("identity").equals("proc-a")));
        // The HEALTH line comes once the health server is up, after the controller started: it may
        // follow the LEADING line of a quick first term.
        Await.until(
            "the process prints its health address",
            Duration.ofSeconds(30),
            () ->
                out.stream()
                    .flatMap(l -> ProcessEvent.parse(l).stream())
                    .anyMatch(e -> e.kind().equals("health")));
        String health =
            out.stream()
                .flatMap(l -> ProcessEvent.parse(l).stream())
                .filter(e -> e.kind().equals("health"))
                .findFirst()
                .orElseThrow()
                .get("addr");
        assertEquals(200, get("http://" + health + "/healthz"));
        Await.until(
            "readyz", Duration.ofSeconds(10), () -> get("http://" + health + "/readyz") == 200);
        IPPoolController follower = harness.start("replica-b", 2);
        // replica-b serves /metrics the way ControllerMain does, to watch its gauge turn 1
        HealthServer followerHttp =
            HealthServer.start(
                "127.0.0.1",
                0,
                follower::health,
                follower::isSynced,
                ControllerMain.prometheus(follower));
        String followerAddr = "127.0.0.1:" + followerHttp.port();
        assertEquals(1.0, leaderGauge(health, "proc-a"), "the process leads: client-go's gauge");
        await("replica-b follows")
            .atMost(Duration.ofSeconds(10))
            .until(() -> leaderGauge(followerAddr, "replica-b"), value -> value == 0.0);

        harness.create(ControllerHarness.pool(ns, "pool", 51));
        Await.until(
            "the process registers the pool",
            Duration.ofSeconds(30),
            () ->
                harness.read(ns, "pool").getStatus() != null
                    && harness
                        .read(ns, "pool")
                        .getStatus()
                        .condition(PoolCondition.REGISTERED)
                        .map(PoolCondition::isTrue)
                        .orElse(false));
        String network = ns + "/pool";
        createConcurrently(harness, ns, network, 0, 10);
        Await.until(
            "the process allocates",
            Duration.ofSeconds(30),
            () -> out.stream().anyMatch(HandoverIT::isAllocated));

        leader.destroyForcibly().waitFor();
        long killed = System.currentTimeMillis();
        long byProcess = out.stream().filter(HandoverIT::isAllocated).count();
        createConcurrently(harness, ns, network, 10, 30);

        // isLeader() turns true before the started callback has printed its LEADING line.
        Await.until(
            "the follower takes over",
            Duration.ofSeconds(30),
            () -> harness.events("replica-b").stream().anyMatch(e -> e.kind().equals("leading")));
        assertTrue(follower.isLeader(), "replica-b printed LEADING but does not lead");
        await("replica-b's leader gauge turns 1")
            .atMost(Duration.ofSeconds(5))
            .until(() -> leaderGauge(followerAddr, "replica-b"), value -> value == 1.0);
        followerHttp.close();
        long leading =
            harness.events("replica-b").stream()
                .filter(e -> e.kind().equals("leading"))
                .map(ProcessEvent::epochMillis)
                .findFirst()
                .orElseThrow();
        Await.until(
            "all 30 configs are Allocated",
            Duration.ofSeconds(120),
            () -> IntStream.range(0, 30).allMatch(vm -> allocated(harness, ns, vm)));
        long done = System.currentTimeMillis();

        Map<String, String> macByIp = new HashMap<>();
        for (int vm = 0; vm < 30; vm++) {
          for (NetworkConfigStatus s :
              harness.readConfig(ns, name(vm)).getStatus().getNetworkConfigs()) {
            assertEquals(
                null,
                macByIp.put(s.getAllocatedIPAddress(), s.getMacAddress()),
                "duplicate " + s.getAllocatedIPAddress());
          }
        }
        IPv4Status table = harness.read(ns, "pool").getStatus().getIpv4();
        Map<String, String> tableMacs = new HashMap<>(table.getAllocated());
        tableMacs.values().removeIf(IPv4Status::isMarker);
        assertEquals(macByIp, tableMacs);
        assertEquals(60, table.getUsed());
        assertEquals(241 - 60, table.getAvailable());
        assertTrue(
            follower.stats().addressesAllocated.get() >= 40,
            "the new leader allocated the pending ones: " + follower.stats());
        for (String line : out) {
          assertTrue(
              ProcessEvent.parse(line).filter(e -> !e.get("identity").isEmpty()).isPresent(),
              "not an event line with an identity: " + line);
        }
        System.out.printf(
            "RESULT handover: process allocated %d before SIGKILL; new leader"
                + " after %d ms (lease 3 s); all 60 addresses %d ms after the kill; %s%n",
            byProcess, leading - killed, done - killed, follower.stats());
      } finally {
        leader.destroyForcibly();
      }
    }
  }

  /** A kubeconfig for the harness's restricted identity. */
  private static Path kubeconfigFor(ControllerHarness harness, KubeCluster cluster, Path dir)
      throws Exception {
    String token;
    if ("ServiceAccount".equals(harness.identity.subject().getKind())) {
      token =
          new CoreV1Api(harness.admin)
              .createNamespacedServiceAccountToken(
                  harness.identity.subject().getName(),
                  harness.identity.subject().getNamespace(),
                  new AuthenticationV1TokenRequest()
                      .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
              .execute()
              .getStatus()
              .getToken();
    } else {
      token = harness.identity.token(); // a static user of the local control plane
    }
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: it",
            "  cluster:",
            "    server: " + cluster.server(),
            "    insecure-skip-tls-verify: true",
            "users:",
            "- name: it",
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: it",
            "  context: {cluster: it, user: it, namespace: " + harness.home.name() + "}",
            "current-context: it",
            ""));
    return file;
  }

  private static void createConcurrently(
      ControllerHarness harness, String ns, String network, int from, int to) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    List<Future<?>> done = new ArrayList<>();
    for (int vm = from; vm < to; vm++) {
      int n = vm;
      done.add(
          threads.submit(
              () ->
                  harness.create(
                      ControllerHarness.vmConfig(
                          ns,
                          name(n),
                          List.of(
                              ControllerHarness.nic(
                                  network, String.format("52:54:00:51:%02x:01", n)),
                              ControllerHarness.nic(
                                  network, String.format("52:54:00:51:%02x:02", n)))))));
    }
    for (Future<?> f : done) {
      f.get();
    }
    threads.shutdown();
  }

  private static String name(int vm) {
    return String.format("vm-%02d", vm);
  }

  private static boolean allocated(ControllerHarness harness, String ns, int vm) {
    return harness.allocated(ns, name(vm));
  }

  /** client-go's leader gauge on /metrics at {@code addr}, for the lock and this identity. */
  private static double leaderGauge(String addr, String identity) throws Exception {
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + addr + "/metrics"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, metrics.statusCode());
    List<String> lines =
        metrics.body().lines().filter(l -> l.startsWith("leader_election_master_status{")).toList();
    assertEquals(1, lines.size(), metrics.body());
    String line = lines.get(0);
    assertTrue(
        line.contains("identity=\"" + identity + "\"")
            && line.contains("name=\"" + ControllerConfig.DEFAULT_LEASE_NAME + "\""),
        line);
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  private static int get(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static void readLines(Process process, List<String> out) {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.add(line);
        System.out.println("[proc-a] " + line);
      }
    } catch (java.io.IOException e) {
      // SIGKILL closes the pipe under a blocked read ("Stream closed"): not a line it printed
      System.out.println("[proc-a] (stdout closed: " + e + ")");
    }
  }

  private static boolean isAllocated(String line) {
    return ProcessEvent.parse(line).filter(e -> e.kind().equals("allocated")).isPresent();
  }
}
