package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.VirtualTime;
import io.kubernetes.client.openapi.ApiException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/**
 * The webhook certificate renewed while the replica runs, in virtual time: a one-year certificate
 * is replaced 30 days before its end, from the same CA, without touching the caBundle; a new CA
 * enters the caBundle a check before its certificate is served; a renewal that keeps failing shows
 * in health and in the meters before the certificate ends.
 */
class WebhookCertificatesTest {
  private static final List<String> HOSTS = List.of("127.0.0.1");
  private static final WebhookCertificates.Timing TIMING = WebhookCertificates.Timing.DEFAULT;

  private final VirtualTime time = VirtualTime.withSeed(1);
  private final Clock wall = time.newWallClock();
  private final List<String> transcript = new ArrayList<>();

  private Instant day(long days) {
    return VirtualTime.EPOCH.plus(Duration.ofDays(days));
  }

  private void advanceTo(Instant instant) {
    time.advance(Duration.between(wall.instant(), instant));
  }

  private WebhookCertificates start(WebhookCertificates.Source source) throws ApiException {
    return WebhookCertificates.start(
        source,
        bundle -> transcript.add(wall.instant() + " register " + subjects(bundle)),
        TIMING,
        wall,
        time.scheduler());
  }

  @Test
  void aRunningReplicaRenewsThirtyDaysBeforeTheEndFromTheSameCaWithoutTouchingTheBundle()
      throws Exception {
    WebhookCertificates certs = start(WebhookCertificates.inMemory(HOSTS, wall, TIMING));
    X509Certificate first = certs.keys().current();
    String ca = certs.serving().caPem();
    assertEquals(day(365), first.getNotAfter().toInstant());

    advanceTo(day(335).minusSeconds(1));
    assertEquals(first, certs.keys().current(), "not renewed before it falls due");
    assertEquals(0, certs.rotations());

    advanceTo(day(335));
    X509Certificate second = certs.keys().current();
    assertNotEquals(first, second, "renewed when it falls due, while running");
    assertEquals(day(335 + 365), second.getNotAfter().toInstant());
    assertEquals(ca, certs.serving().caPem(), "from the same CA");
    second.verify(certs.serving().caCertificate().getPublicKey());
    assertEquals(1, certs.rotations());

    // three years on: never within 30 days of its end, and the bundle written only at start
    for (int d = 336; d <= 3 * 365; d++) {
      advanceTo(day(d));
      Instant end = certs.keys().current().getNotAfter().toInstant();
      assertFalse(
          end.isBefore(wall.instant().plus(TIMING.renewBefore())),
          "day " + d + ": serving a certificate that ends at " + end);
      assertEquals(Optional.empty(), certs.problem(), "day " + d);
    }
    assertEquals(3, certs.rotations(), "renewed at days 335, 700 and 1065");
    assertEquals(List.of(VirtualTime.EPOCH + " register [CN=vm-dhcp-webhook-ca]"), transcript);
    certs.close();
    time.assertNoMoreTasks();
  }

  @Test
  void theNextHandshakePresentsTheRenewedCertificate() throws Exception {
    // the client checks validity on the real clock: virtual day 336 is today
    time.jumpWallClock(
        wall,
        Duration.between(
            VirtualTime.EPOCH,
            Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofDays(336))));
    Instant start = wall.instant();
    WebhookCertificates certs = start(WebhookCertificates.inMemory(HOSTS, wall, TIMING));
    WebhookServer server =
        WebhookServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            certs.keys().sslContext(),
            new AdmissionReviews(null, null, null, false, null),
            () -> false);
    try {
      X509Certificate first = handshake(server.port(), certs.serving().caPem());
      assertEquals(start.plus(Duration.ofDays(365)), first.getNotAfter().toInstant());
      time.advance(Duration.ofDays(335));
      X509Certificate renewed = handshake(server.port(), certs.serving().caPem());
      assertEquals(
          start.plus(Duration.ofDays(335 + 365)),
          renewed.getNotAfter().toInstant(),
          "the same listener presents the renewed certificate");
    } finally {
      server.close();
      certs.close();
    }
  }

  @Test
  void aNewCaIsWrittenIntoTheBundleOneCheckBeforeItsCertificateIsServed() throws Exception {
    WebhookTls fromOldCa = WebhookTls.generate(HOSTS, wall);
    AtomicReference<WebhookTls> stored = new AtomicReference<>(fromOldCa);
    WebhookCertificates certs = start(serving -> stored.get());
    transcript.add(wall.instant() + " serve " + certs.keys().current().getNotAfter().toInstant());

    advanceTo(day(1));
    stored.set(WebhookTls.generate(HOSTS, wall)); // another replica replaced CA and certificate
    advanceTo(day(1).plus(TIMING.checkEvery()));
    assertEquals(fromOldCa.certificate(), certs.keys().current(), "not served before the bundle");
    advanceTo(day(1).plus(TIMING.checkEvery()).plus(TIMING.retryAfter()));
    transcript.add(wall.instant() + " serve " + certs.keys().current().getNotAfter().toInstant());

    assertEquals(
        List.of(
            VirtualTime.EPOCH + " register [CN=vm-dhcp-webhook-ca]",
            VirtualTime.EPOCH + " serve " + day(365),
            day(1).plus(TIMING.checkEvery()) + " register [CN=vm-dhcp-webhook-ca]",
            day(1).plus(TIMING.checkEvery()).plus(TIMING.retryAfter()) + " serve " + day(366)),
        transcript);
    certs.close();
  }

  @Test
  void aRenewalThatKeepsFailingMakesTheReplicaUnhealthyAWeekBeforeTheEndAndShowsInTheMeters()
      throws Exception {
    WebhookTls tls = WebhookTls.generate(HOSTS, wall);
    WebhookCertificates certs =
        start(
            serving -> {
              if (serving == null) {
                return tls;
              }
              throw new ApiException(500, "etcdserver: request timed out");
            });
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WebhookCertificateMetrics metrics = WebhookCertificateMetrics.bind(() -> certs, registry);
    ControllerHealth leading = new ControllerHealth(true, "leading");

    assertEquals(day(365).getEpochSecond(), meter(registry, "expiry_seconds"));
    advanceTo(day(358).minusSeconds(1));
    assertTrue(ControllerMain.health(leading, certs).healthy(), "a week and a second left");
    assertTrue(meter(registry, "check_failures_total") > 0, "failures counted");

    advanceTo(day(358));
    ControllerHealth health = ControllerMain.health(leading, certs);
    assertFalse(health.healthy());
    assertTrue(
        health.detail().startsWith("webhook certificate ends at " + day(365) + " and was not"),
        health.detail());
    assertTrue(health.detail().contains("last failure: 500"), health.detail());
    assertEquals(0, meter(registry, "rotations_total"));
    assertEquals(day(365).getEpochSecond(), meter(registry, "expiry_seconds"));
    assertTrue(metrics != null);
    certs.close();
  }

  @Test
  void theBundleKeepsTheCasThatHaveNotEndedAfterTheNewOne() throws Exception {
    byte[] old = WebhookTls.generate(HOSTS, wall).caBundle();
    byte[] expired =
        WebhookTls.generate(HOSTS, Clock.offset(wall, Duration.ofDays(-3651))).caBundle();
    byte[] fresh = WebhookTls.generate(HOSTS, wall).caBundle();
    byte[] live =
        (new String(old, StandardCharsets.UTF_8) + new String(expired, StandardCharsets.UTF_8))
            .getBytes(StandardCharsets.UTF_8);

    byte[] merged = WebhookRegistration.merged(fresh, live, wall.instant());

    assertEquals(List.of(first(fresh), first(old)), certificates(merged));
    assertEquals(
        List.of(first(fresh)),
        certificates(WebhookRegistration.merged(fresh, fresh, wall.instant())),
        "the same CA is not repeated");
  }

  private static String subjects(byte[] bundle) {
    return certificates(bundle).stream()
        .map(c -> c.getSubjectX500Principal().getName())
        .toList()
        .toString();
  }

  private static X509Certificate first(byte[] bundle) {
    return certificates(bundle).get(0);
  }

  private static List<X509Certificate> certificates(byte[] bundle) {
    try {
      return CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(bundle))
          .stream()
          .map(X509Certificate.class::cast)
          .toList();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static double meter(PrometheusMeterRegistry registry, String suffix) {
    String name = "ippool_webhook_certificate_" + suffix + " ";
    return registry
        .scrape()
        .lines()
        .filter(line -> line.startsWith(name))
        .mapToDouble(line -> Double.parseDouble(line.substring(name.length()).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + "missing from " + registry.scrape()));
  }

  /** The certificate the listener presents, verified against {@code caPem} and the address. */
  static X509Certificate handshake(int port, String caPem) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (X509Certificate ca : certificates(caPem.getBytes(StandardCharsets.UTF_8))) {
      trust.setCertificateEntry("ca-" + i++, ca);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }
}
