package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebhookTlsTest {
  private static final Clock NOW =
      Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

  private static X509Certificate cert(String pem) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aGeneratedCertificateIsSignedByItsCaAndNamesTheHosts() throws Exception {
    WebhookTls tls = WebhookTls.generate(List.of("vm-dhcp-webhook.ns.svc", "127.0.0.1"), NOW);
    X509Certificate leaf = cert(tls.certificatePem());
    leaf.verify(cert(tls.caPem()).getPublicKey());
    assertEquals(
        List.of(List.of(2, "vm-dhcp-webhook.ns.svc"), List.of(7, "127.0.0.1")),
        leaf.getSubjectAlternativeNames().stream().map(List::copyOf).toList());
    assertEquals(Instant.parse("2030-01-01T00:00:00Z").plus(Duration.ofDays(365)), tls.notAfter());
    assertTrue(tls.sslContext().getProtocol().startsWith("TLS"));
    assertFalse(tls.toString().contains("PRIVATE"), "keys stay out of toString");
  }

  @Test
  void renewalKeepsTheCaAndIsDueThirtyDaysBeforeTheEnd() {
    WebhookTls tls = WebhookTls.generate(List.of("h"), NOW);
    assertFalse(tls.needsRenewal(NOW));
    Clock late = Clock.offset(NOW, Duration.ofDays(336));
    assertTrue(tls.needsRenewal(late));
    WebhookTls renewed = WebhookTls.issue(tls.caPem(), tls.caKeyPem(), List.of("h"), late);
    assertEquals(tls.caPem(), renewed.caPem());
    assertNotEquals(tls.certificatePem(), renewed.certificatePem());
    assertFalse(renewed.needsRenewal(late));
  }

  @Test
  void filesOfAMountedSecretAreServedAndAMissingOneIsNamed(@TempDir Path dir) throws Exception {
    WebhookTls tls = WebhookTls.generate(List.of("h"), NOW);
    Files.writeString(dir.resolve("tls.crt"), tls.certificatePem());
    Files.writeString(dir.resolve("tls.key"), tls.keyPem());
    WebhookTls loaded = WebhookTls.load(dir);
    assertEquals(
        tls.certificatePem(), loaded.caPem(), "without ca.crt the certificate is its bundle");
    loaded.sslContext();
    Files.delete(dir.resolve("tls.key"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WebhookTls.load(dir));
    assertTrue(e.getMessage().contains("tls.key cannot be read"), e.getMessage());
  }
}
