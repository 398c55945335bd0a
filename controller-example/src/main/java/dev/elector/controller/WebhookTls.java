package dev.elector.controller;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The webhook's TLS material: a serving certificate and key, and the CA bundle the API server
 * trusts it by. Either loaded from PEM files ({@code tls.crt}, {@code tls.key}, {@code ca.crt}, as
 * a {@code kubernetes.io/tls} Secret or cert-manager mounts them), or generated: a self-signed
 * ECDSA P-256 CA and a serving certificate it signs, for the given DNS names and IP addresses.
 * BouncyCastle, already on the class path through client-java, writes the certificates.
 *
 * @param certificatePem the serving certificate (PEM)
 * @param keyPem its private key (PEM)
 * @param caPem the CA that signed it (PEM), the webhook configurations' {@code caBundle}
 * @param caKeyPem the CA's key (PEM), or null when the CA is not ours (loaded without it)
 */
record WebhookTls(String certificatePem, String keyPem, String caPem, String caKeyPem) {
  /** Validity of a generated CA. */
  static final Duration CA_VALIDITY = Duration.ofDays(3650);

  /** Validity of a generated serving certificate. */
  static final Duration CERT_VALIDITY = Duration.ofDays(365);

  /** A serving certificate closer to its end than this is renewed at start. */
  static final Duration RENEW_BEFORE = Duration.ofDays(30);

  /** A new CA and a serving certificate for {@code hosts} (DNS names or IPv4 addresses). */
  static WebhookTls generate(List<String> hosts, Clock clock) {
    return generate(hosts, clock, CERT_VALIDITY);
  }

  /** As above, the serving certificate valid for {@code validity} (short only in tests). */
  static WebhookTls generate(List<String> hosts, Clock clock, Duration validity) {
    KeyPair ca = keyPair();
    X509Certificate caCert =
        sign(
            new X500Name("CN=vm-dhcp-webhook-ca"),
            ca,
            new X500Name("CN=vm-dhcp-webhook-ca"),
            ca.getPublic(),
            true,
            List.of(),
            clock.instant(),
            CA_VALIDITY);
    return issue(pem(caCert), pem(ca.getPrivate()), hosts, clock, validity);
  }

  /** A new serving certificate for {@code hosts}, signed by the given CA. */
  static WebhookTls issue(String caPem, String caKeyPem, List<String> hosts, Clock clock) {
    return issue(caPem, caKeyPem, hosts, clock, CERT_VALIDITY);
  }

  /** As above, valid for {@code validity} from now (short only in tests). */
  static WebhookTls issue(
      String caPem, String caKeyPem, List<String> hosts, Clock clock, Duration validity) {
    X509Certificate caCert = certificate(caPem);
    PrivateKey caKey = privateKey(caKeyPem);
    KeyPair leaf = keyPair();
    X509Certificate cert =
        sign(
            X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded()),
            new KeyPair(caCert.getPublicKey(), caKey),
            new X500Name("CN=" + hosts.get(0)),
            leaf.getPublic(),
            false,
            hosts,
            clock.instant(),
            validity);
    return new WebhookTls(pem(cert), pem(leaf.getPrivate()), caPem, caKeyPem);
  }

  /**
   * Loads {@code tls.crt}, {@code tls.key} and {@code ca.crt} from {@code dir}; without {@code
   * ca.crt} the serving certificate is its own bundle.
   *
   * @throws IllegalArgumentException naming the missing or unreadable file
   */
  static WebhookTls load(Path dir) {
    String cert = read(dir.resolve("tls.crt"));
    String key = read(dir.resolve("tls.key"));
    Path ca = dir.resolve("ca.crt");
    return new WebhookTls(cert, key, Files.isReadable(ca) ? read(ca) : cert, null);
  }

  /** Names the certificate's end, never the keys. */
  @Override
  public String toString() {
    return "WebhookTls[notAfter=" + notAfter() + "]";
  }

  /** When the serving certificate ends. */
  Instant notAfter() {
    return certificate(certificatePem).getNotAfter().toInstant();
  }

  /** Whether the serving certificate should be renewed now. */
  boolean needsRenewal(Clock clock) {
    return needsRenewal(clock, RENEW_BEFORE);
  }

  /** Whether the serving certificate ends within {@code renewBefore} from now, or at its end. */
  boolean needsRenewal(Clock clock, Duration renewBefore) {
    return !notAfter().isAfter(clock.instant().plus(renewBefore));
  }

  /**
   * Whether the CA ends within {@code validity} from now: a serving certificate issued from it now
   * would outlive it, so a new CA is due.
   */
  boolean caEndsWithin(Clock clock, Duration validity) {
    return caCertificate().getNotAfter().toInstant().isBefore(clock.instant().plus(validity));
  }

  /** The serving certificate. */
  X509Certificate certificate() {
    return certificate(certificatePem);
  }

  /** The serving certificate's private key. */
  PrivateKey privateKey() {
    return privateKey(keyPem);
  }

  /** The CA certificate that signed the serving certificate: the first of the bundle. */
  X509Certificate caCertificate() {
    return certificate(caPem);
  }

  /** The CA bundle, as the webhook configurations carry it. */
  byte[] caBundle() {
    return caPem.getBytes(StandardCharsets.UTF_8);
  }

  /** An SSLContext that serves the certificate. */
  SSLContext sslContext() {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] password = new char[0];
      store.setKeyEntry(
          "webhook", privateKey(keyPem), password, new Certificate[] {certificate(certificatePem)});
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, new SecureRandom());
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("the webhook certificate cannot be used: " + e, e);
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make EC P-256 keys: " + e, e);
    }
  }

  private static X509Certificate sign(
      X500Name issuer,
      KeyPair issuerKeys,
      X500Name subject,
      java.security.PublicKey subjectKey,
      boolean ca,
      List<String> hosts,
      Instant now,
      Duration validity) {
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              issuer,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(validity)),
              subject,
              subjectKey);
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (ca) {
        builder.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(
            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        List<GeneralName> names = new ArrayList<>();
        for (String host : hosts) {
          names.add(
              new GeneralName(
                  Ipv4.parse(host).isPresent() ? GeneralName.iPAddress : GeneralName.dNSName,
                  host));
        }
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot sign the webhook certificate: " + e, e);
    }
  }

  /** Certificates as one PEM bundle, in order. */
  static String pemBundle(List<X509Certificate> certificates) {
    StringBuilder out = new StringBuilder();
    certificates.forEach(c -> out.append(pem(c)));
    return out.toString();
  }

  /** A private key as PKCS #8 PEM ("PRIVATE KEY"), which keeps EC keys readable alone. */
  private static String pem(PrivateKey key) {
    return "-----BEGIN PRIVATE KEY-----\n"
        + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static X509Certificate certificate(String pem) {
    try {
      return (X509Certificate)
          java.security.cert.CertificateFactory.getInstance("X.509")
              .generateCertificate(
                  new java.io.ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object parsed = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (parsed instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      if (parsed instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new IllegalArgumentException(
          "not a PEM private key (found " + (parsed == null ? "nothing" : parsed.getClass()) + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException("not a PEM private key: " + e.getMessage(), e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file
              + " cannot be read ("
              + e.getMessage()
              + "); mount a kubernetes.io/tls Secret there (tls.crt, tls.key, ca.crt)",
          e);
    }
  }
}
