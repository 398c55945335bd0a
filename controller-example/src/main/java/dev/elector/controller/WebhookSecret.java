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
 * replica that starts within {@link WebhookTls#RENEW_BEFORE} of the serving certificate's end
 * issues a new one from the same CA and replaces the Secret (conditional on its resourceVersion);
 * the CA, and so the registered caBundle, stays, so replicas still serving the old certificate stay
 * trusted until it ends.
 */
final class WebhookSecret {
  private static final Logger log = LoggerFactory.getLogger(WebhookSecret.class);

  private WebhookSecret() {}

  /** The certificate in {@code namespace/name}, made or renewed as needed. */
  static WebhookTls obtain(
      ApiClient client, String namespace, String name, List<String> hosts, Clock clock)
      throws ApiException {
    CoreV1Api core = new CoreV1Api(client);
    for (int attempt = 0; ; attempt++) {
      V1Secret secret = read(core, namespace, name);
      if (secret == null) {
        WebhookTls made = WebhookTls.generate(hosts, clock);
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
      if (!stored.needsRenewal(clock) || stored.caKeyPem() == null) {
        return stored;
      }
      WebhookTls renewed = WebhookTls.issue(stored.caPem(), stored.caKeyPem(), hosts, clock);
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
