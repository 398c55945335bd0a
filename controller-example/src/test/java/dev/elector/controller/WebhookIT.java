package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.PoolCondition;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real API server calls the webhook: a ValidatingWebhookConfiguration and a
 * MutatingWebhookConfiguration with {@code clientConfig.url} https://127.0.0.1:PORT and the
 * generated CA as caBundle, limited to this test's namespace. Each rule refuses with its message, a
 * pool without serverIP and range gets them, and a pool in use cannot be deleted; in a namespace
 * the webhook does not cover, the finalizer holds such a pool instead and says why. The serving
 * certificate lasts 30 s and is renewed in process every 4 s, under all of these; the API server
 * keeps calling the webhook across the renewals.
 */
@KubeTest
class WebhookIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final AtomicInteger probes = new AtomicInteger();
  private static ControllerHarness harness;
  private static WebhookServer server;
  private static WebhookRegistration registration;
  private static WebhookCertificates certificates;
  private static final WebhookCertificates.Timing SHORT =
      new WebhookCertificates.Timing(
          Duration.ofSeconds(30),
          Duration.ofSeconds(26),
          Duration.ofSeconds(1),
          Duration.ofSeconds(1),
          Duration.ofSeconds(5));
  private static String ns;

  @BeforeAll
  static void start(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    harness = ControllerHarness.create(cluster, "webhook-it");
    ns = namespace.name();
    // No test here makes NetworkAttachmentDefinitions (the rule that a new pool needs one is
    // AdmissionReviewsTest's, its lookup NetworkAttachmentsTest's and IPPoolControllerIT's): the
    // pools are admitted before their networks.
    IPPoolController controller = harness.start("replica-a", 2, b -> b.poolBeforeNetwork(true));
    harness.awaitLeader(WAIT);
    ServingKeys keys = new ServingKeys();
    server =
        WebhookServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            keys.sslContext(),
            controller.admissionReviews(),
            controller::isSynced);
    registration =
        new WebhookRegistration(
            "webhook-it-" + ns,
            "https://127.0.0.1:" + server.port(),
            null,
            Map.of("kubernetes.io/metadata.name", ns));
    // 30-second certificates renewed 26 s before their end: one every 4 s, under every test here
    Clock clock = Clock.systemUTC();
    certificates =
        WebhookCertificates.start(
            keys,
            WebhookCertificates.inMemory(List.of("127.0.0.1"), clock, SHORT),
            bundle -> registration.apply(harness.admin, bundle, clock),
            SHORT,
            clock,
            ControllerMain.daemonScheduler("webhook-it-cert"));
    // the API server picks webhook configurations up asynchronously
    Await.until(
        "the API server calls the webhook",
        WAIT,
        () -> {
          IPPool probe = ControllerHarness.pool(ns, "probe-" + probes.incrementAndGet(), 90);
          probe.getSpec().getIpv4Config().serverIP("10.90.0.1");
          KubernetesApiResponse<IPPool> r = harness.pools.create(probe);
          if (r.isSuccess()) {
            harness.pools.delete(ns, probe.getMetadata().getName());
            return false;
          }
          return r.getStatus() != null && r.getStatus().getMessage().contains("router's address");
        });
  }

  @AfterAll
  static void stop() throws Exception {
    if (certificates != null) {
      certificates.close();
    }
    if (registration != null) {
      registration.delete(harness.admin);
    }
    if (server != null) {
      server.close();
    }
    harness.close();
  }

  private static void refused(String name, Consumer<IPPool> breakIt, String... inMessage) {
    IPPool pool = ControllerHarness.pool(ns, name, 91);
    breakIt.accept(pool);
    KubernetesApiResponse<IPPool> response = harness.pools.create(pool);
    assertFalse(response.isSuccess(), name + " was stored");
    String message = response.getStatus().getMessage();
    assertTrue(message.contains("IPPool " + ns + "/" + name + " is refused"), message);
    for (String part : inMessage) {
      assertTrue(message.contains(part), "'" + part + "' missing from: " + message);
    }
  }

  @Test
  void eachRuleRefusesWithItsMessage() {
    refused(
        "server-is-router",
        p -> p.getSpec().getIpv4Config().serverIP("10.91.0.1"),
        "spec.ipv4Config.serverIP 10.91.0.1 is the router's address");
    refused(
        "network-in-range",
        p -> p.getSpec().getIpv4Config().getPool().start("10.91.0.0"),
        "includes the network address 10.91.0.0 of 10.91.0.0/24",
        "set pool.start to 10.91.0.1 or later");
    refused(
        "broadcast-in-range",
        p -> p.getSpec().getIpv4Config().getPool().end("10.91.0.255"),
        "includes the broadcast address 10.91.0.255");
    refused(
        "server-broadcast",
        p -> p.getSpec().getIpv4Config().serverIP("10.91.0.255"),
        "serverIP 10.91.0.255 is the broadcast address of 10.91.0.0/24");
    refused(
        "service-cidr",
        p ->
            p.getSpec()
                .getIpv4Config()
                .cidr("10.53.0.0/24")
                .serverIP("10.53.0.2")
                .router("10.53.0.1")
                .getPool()
                .start("10.53.0.10")
                .end("10.53.0.20"),
        "overlaps the cluster's service CIDR 10.53.0.0/16");
    refused(
        "range-outside",
        p -> p.getSpec().getIpv4Config().getPool().end("10.92.0.20"),
        "spec.ipv4Config.pool.end 10.92.0.20 is outside spec.ipv4Config.cidr 10.91.0.0/24");
  }

  /**
   * Upstream's CEL rules on spec.ipv4Config and its {@code format: ipv4} fields, which this
   * project's CRD leaves to the webhook (see ippool-api's UpstreamSchemaCasesIT for the rest of
   * upstream's schema): a stored pool keeps its cidr, serverIP, router, range and exclusions, and
   * every address is an IPv4 address.
   */
  /** Re-reads the pool, changes it and sends the update, again while it answers a conflict. */
  private static KubernetesApiResponse<IPPool> update(String name, Consumer<IPPool> change)
      throws Exception {
    for (int i = 0; ; i++) {
      IPPool fresh = harness.read(ns, name);
      change.accept(fresh);
      KubernetesApiResponse<IPPool> response = harness.pools.update(fresh);
      if (response.getHttpStatusCode() != 409 || i > 20) {
        return response;
      }
    }
  }

  @Test
  void upstreamsImmutableFieldsAndIpv4FormatsAreKept() throws Exception {
    IPPool stored = harness.create(ControllerHarness.pool(ns, "immutable", 94));
    for (Consumer<IPPool> change :
        List.<Consumer<IPPool>>of(
            p -> p.getSpec().getIpv4Config().cidr("10.94.0.0/23"),
            p -> p.getSpec().getIpv4Config().serverIP("10.94.0.3"),
            p -> p.getSpec().getIpv4Config().router("10.94.0.254"),
            p -> p.getSpec().getIpv4Config().router(null),
            p -> p.getSpec().getIpv4Config().getPool().start("10.94.0.11"),
            p -> p.getSpec().getIpv4Config().getPool().end("10.94.0.249"))) {
      KubernetesApiResponse<IPPool> response = update("immutable", change);
      assertFalse(response.isSuccess(), "stored: " + response.getObject());
      String message = response.getStatus().getMessage();
      assertTrue(
          message.contains("immutable, as in upstream's API")
              && message.contains(PoolImmutability.FLAG),
          message);
    }
    assertTrue(
        update(
                "immutable",
                p -> p.getSpec().getIpv4Config().getPool().exclude(List.of("10.94.0.20")))
            .isSuccess(),
        "exclusions may be added where none were");
    assertEquals(
        422,
        update(
                "immutable",
                p -> p.getSpec().getIpv4Config().getPool().exclude(List.of("10.94.0.21")))
            .getHttpStatusCode(),
        "and are kept once there");
    assertEquals(
        stored.getSpec().getIpv4Config().getCidr(),
        harness.read(ns, "immutable").getSpec().getIpv4Config().getCidr());

    refused(
        "not-ipv4-server",
        p -> p.getSpec().getIpv4Config().serverIP("10.91.0.300"),
        "'10.91.0.300' is not an IPv4 address");
    refused(
        "not-ipv4-router",
        p -> p.getSpec().getIpv4Config().router("gateway"),
        "'gateway' is not an IPv4 address");
    refused(
        "not-ipv4-exclude",
        p -> p.getSpec().getIpv4Config().getPool().exclude(List.of("10.91.0.x")),
        "'10.91.0.x' is not an IPv4 address");
    // upstream's schema would answer "Required value" for the serverIP and range it cannot fill in
    refused(
        "slash-31",
        p ->
            p.getSpec().getIpv4Config().cidr("10.91.0.4/31").serverIP(null).router(null).pool(null),
        "spec.ipv4Config.cidr 10.91.0.4/31 holds only its network and broadcast addresses",
        "use a /30 or larger, for example 10.91.0.0/29");
  }

  @Test
  void theApiServerKeepsCallingTheWebhookAcrossCertificateRenewals() throws Exception {
    long before = certificates.rotations();
    List<java.math.BigInteger> presented = new java.util.ArrayList<>();
    List<String> notReviewed = new java.util.ArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    Await.until(
        "two renewals while the API server calls the webhook",
        WAIT,
        () -> {
          // what the listener presents, verified against the caBundle the API server holds
          byte[] bundle =
              new io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api(harness.admin)
                  .readValidatingWebhookConfiguration(registration.name())
                  .execute()
                  .getWebhooks()
                  .get(0)
                  .getClientConfig()
                  .getCaBundle();
          java.math.BigInteger serial =
              WebhookCertificatesTest.handshake(
                      server.port(), new String(bundle, java.nio.charset.StandardCharsets.UTF_8))
                  .getSerialNumber();
          if (presented.isEmpty() || !presented.get(presented.size() - 1).equals(serial)) {
            presented.add(serial);
          }
          IPPool probe = ControllerHarness.pool(ns, "renewal-" + calls.incrementAndGet(), 90);
          probe.getSpec().getIpv4Config().serverIP("10.90.0.1");
          KubernetesApiResponse<IPPool> r = harness.pools.create(probe);
          String answer = r.isSuccess() ? "stored" : r.getStatus().getMessage();
          if (!answer.contains("router's address")) {
            notReviewed.add(answer);
          }
          return certificates.rotations() - before >= 2 && presented.size() >= 3;
        });
    assertEquals(List.of(), notReviewed, "calls the webhook did not answer");
    assertTrue(calls.get() >= 3, "calls: " + calls.get());
    System.out.printf(
        "WebhookIT renewals: %d certificates presented, %d rotations, %d API server calls all"
            + " reviewed%n",
        presented.size(), certificates.rotations() - before, calls.get());
  }

  @Test
  void replicasRegisteringAtOnceAllSucceed() throws Exception {
    // Replicas started together (--register-webhooks) write the same two configurations; the
    // writes that lose with 409 read again, so no replica fails its start.
    byte[] caBundle = WebhookTls.generate(List.of("127.0.0.1"), Clock.systemUTC()).caBundle();
    WebhookRegistration racing =
        new WebhookRegistration(
            "webhook-race-" + ns, "https://127.0.0.1:1", null, Map.of("no-such-label", "x"));
    int replicas = 4;
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(replicas);
    try {
      for (int round = 0; round < 5; round++) {
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<?>> writes = new java.util.ArrayList<>();
        for (int i = 0; i < replicas; i++) {
          writes.add(
              threads.submit(
                  () -> {
                    go.await();
                    racing.apply(harness.admin, caBundle);
                    return null;
                  }));
        }
        go.countDown();
        for (java.util.concurrent.Future<?> write : writes) {
          write.get(); // throws what a replica's start would have failed with
        }
      }
    } finally {
      threads.shutdownNow();
      racing.delete(harness.admin);
    }
  }

  @Test
  void aPoolWithoutServerIPAndRangeGetsThemFilledIn() throws Exception {
    IPPool bare =
        new IPPool()
            .metadata(new V1ObjectMeta().namespace(ns).name("bare"))
            .spec(
                new IPPoolSpec()
                    .networkName(ns + "/bare")
                    .ipv4Config(new IPv4Config().cidr("10.93.0.0/24").router("10.93.0.1")));
    IPPool created = harness.create(bare);
    IPv4Config config = created.getSpec().getIpv4Config();
    assertEquals("10.93.0.2", config.getServerIP());
    assertEquals("10.93.0.1", config.getPool().getStart());
    assertEquals("10.93.0.254", config.getPool().getEnd());
  }

  @Test
  void aPoolInUseCannotBeDeleted() throws Exception {
    IPPool pool = harness.create(ControllerHarness.pool(ns, "used", 94));
    String network = pool.getSpec().getNetworkName();
    // the webhook answers from the informer cache: a config is accepted once the pool is in it
    Await.until("the pool is registered", WAIT, () -> registered(ns, "used"));
    harness.create(
        ControllerHarness.vmConfig(
            ns, "vm-1", List.of(ControllerHarness.nic(network, "52:54:00:94:00:01"))));
    Await.until("vm-1 is allocated", WAIT, () -> harness.allocated(ns, "vm-1"));
    KubernetesApiResponse<IPPool> refused = harness.pools.delete(ns, "used");
    assertFalse(refused.isSuccess(), "the pool in use was deleted");
    assertTrue(
        refused
            .getStatus()
            .getMessage()
            .contains(
                "IPPool "
                    + ns
                    + "/used is still used by VirtualMachineNetworkConfig(s) "
                    + ns
                    + "/vm-1 on network "
                    + network),
        refused.getStatus().getMessage());
    harness.configs.delete(ns, "vm-1").throwsApiException();
    Await.until(
        "the pool can be deleted once unused",
        WAIT,
        () -> harness.pools.delete(ns, "used").isSuccess());
  }

  private static boolean registered(String namespace, String name) throws Exception {
    IPPool read = harness.read(namespace, name);
    return read.getStatus() != null
        && read.getStatus()
            .condition(PoolCondition.REGISTERED)
            .map(c -> "True".equals(c.getStatus()))
            .orElse(false);
  }

  @Test
  void withoutTheWebhookTheFinalizerHoldsAPoolInUseAndSaysWhy() throws Exception {
    String other = harness.cluster.createNamespace("webhook-off").name();
    IPPool pool = harness.create(ControllerHarness.pool(other, "used", 95));
    String network = pool.getSpec().getNetworkName();
    harness.create(
        ControllerHarness.vmConfig(
            other, "vm-1", List.of(ControllerHarness.nic(network, "52:54:00:95:00:01"))));
    Await.until("vm-1 is allocated", WAIT, () -> harness.allocated(other, "vm-1"));
    harness.pools.delete(other, "used").throwsApiException();
    Await.until(
        "DeletionBlocked says why",
        WAIT,
        () ->
            harness
                .read(other, "used")
                .getStatus()
                .condition(PoolCondition.DELETION_BLOCKED)
                .map(c -> "True".equals(c.getStatus()) && c.getMessage().contains(other + "/vm-1"))
                .orElse(false));
    assertTrue(harness.agent(other, "used") != null, "the agent keeps serving");
    harness.configs.delete(other, "vm-1").throwsApiException();
    Await.until(
        "the pool goes once unused", WAIT, () -> harness.absent(() -> harness.read(other, "used")));
  }

  @Test
  void replicasShareTheCertificateThroughASecretAndRenewItFromTheSameCa() throws Exception {
    Clock now = Clock.systemUTC();
    List<String> hosts = List.of("vm-dhcp-webhook." + ns + ".svc");
    WebhookTls first = WebhookSecret.obtain(harness.admin, ns, "webhook-tls", hosts, now);
    WebhookTls second = WebhookSecret.obtain(harness.admin, ns, "webhook-tls", hosts, now);
    assertEquals(first.certificatePem(), second.certificatePem(), "the second replica reads it");
    Clock late = Clock.offset(now, Duration.ofDays(340));
    WebhookTls renewed = WebhookSecret.obtain(harness.admin, ns, "webhook-tls", hosts, late);
    assertEquals(first.caPem(), renewed.caPem(), "the caBundle stays");
    assertFalse(first.certificatePem().equals(renewed.certificatePem()), "a new certificate");
    assertEquals(
        renewed.certificatePem(),
        WebhookSecret.obtain(harness.admin, ns, "webhook-tls", hosts, late).certificatePem(),
        "the renewed one is what the Secret holds");
  }
}
