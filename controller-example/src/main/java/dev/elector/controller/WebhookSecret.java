package dev.elector.controller;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's certificate shared by every replica through one Secret ({@code tls.crt}, {@code
 * tls.key}, {@code ca.crt}, {@code ca.key}). The first replica to start generates it and creates
 * the Secret; the others read it (a replica that loses the create race reads the winner's). A
 * replica that finds the serving certificate within {@link WebhookTls#RENEW_BEFORE} of its end, at
 * start or at any check of {@link WebhookCertificates} while it runs, issues a new one from the
 * same CA and replaces the Secret (conditional on its resourceVersion); the CA, and so the
 * registered caBundle, stays, so replicas still serving the old certificate stay trusted until it
 * ends, and they pick the new one up at their next check.
 */
final class WebhookSecret {
  private static final Logger log = LoggerFactory.getLogger(WebhookSecret.class);

  private WebhookSecret() {}

  /** The certificate in {@code namespace/name}, made or renewed as needed. */
  static WebhookTls obtain(
      ApiClient client, String namespace, String name, List<String> hosts, Clock clock)
      throws ApiException {
    return obtain(
        client, namespace, name, hosts, clock, WebhookTls.CERT_VALIDITY, WebhookTls.RENEW_BEFORE);
  }

  /**
   * As above, issuing certificates valid for {@code validity} and renewing them within {@code
   * renewBefore} of their end. A CA that would end before a certificate issued now is replaced by a
   * new one (new CA and certificate); {@link WebhookCertificates} writes it into the caBundle
   * before serving it.
   */
  static WebhookTls obtain(
      ApiClient client,
      String namespace,
      String name,
      List<String> hosts,
      Clock clock,
      java.time.Duration validity,
      java.time.Duration renewBefore)
      throws ApiException {
    CoreV1Api core = new CoreV1Api(client);
    for (int attempt = 0; ; attempt++) {
      V1Secret secret = read(core, namespace, name);
      if (secret == null) {
        WebhookTls made = WebhookTls.generate(hosts, clock, validity);
        try {
          core.createNamespacedSecret(namespace, secret(namespace, name, made, null)).execute();
          log.info("webhook certificate generated into Secret {}/{}", namespace, name);
          return made;
        } catch (ApiException e) {
          if (e.getCode() != 409 || attempt > 3) {
            throw e;
          }
          continue;
        }
      }
      WebhookTls stored = fromSecret(secret);
      if (!stored.needsRenewal(clock, renewBefore) || stored.caKeyPem() == null) {
        return stored;
      }
      WebhookTls renewed =
          stored.caEndsWithin(clock, validity)
              ? WebhookTls.generate(hosts, clock, validity)
              : WebhookTls.issue(stored.caPem(), stored.caKeyPem(), hosts, clock, validity);
      try {
        core.replaceNamespacedSecret(
                name,
                namespace,
                secret(namespace, name, renewed, secret.getMetadata().getResourceVersion()))
            .execute();
        log.info("webhook certificate renewed in Secret {}/{}", namespace, name);
        return renewed;
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt > 3) {
          throw e;
        }
      }
    }
  }

  private static V1Secret read(CoreV1Api core, String namespace, String name) throws ApiException {
    try {
      return core.readNamespacedSecret(name, namespace).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static WebhookTls fromSecret(V1Secret secret) {
    Map<String, byte[]> data = secret.getData() == null ? Map.of() : secret.getData();
    for (String key : List.of("tls.crt", "tls.key", "ca.crt")) {
      if (!data.containsKey(key)) {
        throw new IllegalStateException(
            "Secret "
                + secret.getMetadata().getNamespace()
                + "/"
                + secret.getMetadata().getName()
                + " has no "
                + key
                + "; delete it to have one generated, or give tls.crt, tls.key and ca.crt");
      }
    }
    byte[] caKey = data.get("ca.key");
    return new WebhookTls(
        text(data.get("tls.crt")),
        text(data.get("tls.key")),
        text(data.get("ca.crt")),
        caKey == null ? null : text(caKey));
  }

  private static V1Secret secret(String namespace, String name, WebhookTls tls, String version) {
    Map<String, byte[]> data = new LinkedHashMap<>();
    data.put("tls.crt", bytes(tls.certificatePem()));
    data.put("tls.key", bytes(tls.keyPem()));
    data.put("ca.crt", bytes(tls.caPem()));
    if (tls.caKeyPem() != null) {
      data.put("ca.key", bytes(tls.caKeyPem()));
    }
    return new V1Secret()
        .apiVersion("v1")
        .kind("Secret")
        .metadata(new V1ObjectMeta().name(name).namespace(namespace).resourceVersion(version))
        .type("Opaque")
        .data(data);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
