package dev.elector.controller;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1ServiceReference;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ValidatingWebhookConfiguration and MutatingWebhookConfiguration of the webhook, both named
 * {@code name}, as {@code deploy/webhook/webhooks.yaml} holds them: replaced when they exist (the
 * caBundle follows the CA in use, the CAs before it kept until they end), else created.
 * failurePolicy Fail and a 5 s timeout: while no replica serves, IPPool writes and
 * VirtualMachineNetworkConfig creates are refused rather than let through unchecked (status writes
 * are a subresource and never pass the webhook).
 *
 * @param name name of both configurations
 * @param base where the webhook is reached: a {@code https://} URL without path, or null to use
 *     {@code service}
 * @param service the Service ({@code namespace/name:port}) in front of the replicas, when {@code
 *     base} is null
 * @param namespaceSelector labels a namespace must carry for its objects to be reviewed; empty for
 *     every namespace
 */
record WebhookRegistration(
    String name, String base, String service, Map<String, String> namespaceSelector) {
  /** Default name of both configurations. */
  static final String DEFAULT_NAME = "vm-dhcp-webhook";

  static final String GROUP = "network.harvesterhci.io";
  static final int TIMEOUT_SECONDS = 5;

  /** Attempts at each configuration while other replicas write it at the same time (409). */
  static final int ATTEMPTS = 5;

  /**
   * Replaces both configurations with {@code caBundle}, or creates one that does not exist. The
   * shipped ClusterRole grants get and update on them by name, not create: apply {@code
   * deploy/webhook/webhooks.yaml} once, and the controller keeps their caBundle. Replicas starting
   * together write the same configurations: a write that loses with 409 (a newer resourceVersion,
   * or created meanwhile) reads again and is retried, up to {@value #ATTEMPTS} times.
   *
   * @throws ApiException with the API server's answer; a 403 on create means the configurations
   *     were not applied first
   */
  void apply(ApiClient client, byte[] caBundle) throws ApiException {
    apply(client, caBundle, Clock.systemUTC());
  }

  /**
   * As above. The caBundle written is {@code caBundle} followed by the CAs of the live
   * configuration that have not ended at {@code clock}'s now, up to {@value #MAX_CAS} in all: a
   * replica still serving a certificate from the CA before keeps being trusted while a new CA comes
   * in.
   */
  void apply(ApiClient client, byte[] caBundle, Clock clock) throws ApiException {
    AdmissionregistrationV1Api api = new AdmissionregistrationV1Api(client);
    Instant now = clock.instant();
    retryingConflicts(() -> applyValidating(api, caBundle, now));
    retryingConflicts(() -> applyMutating(api, caBundle, now));
  }

  /** Most CAs a written caBundle carries. */
  static final int MAX_CAS = 4;

  /**
   * {@code caBundle}'s CAs first, then those of {@code live} that are not among them and have not
   * ended at {@code now}, at most {@value #MAX_CAS}.
   */
  static byte[] merged(byte[] caBundle, byte[] live, Instant now) {
    List<X509Certificate> cas = new ArrayList<>(certificates(caBundle));
    if (live != null) {
      for (X509Certificate old : certificates(live)) {
        if (cas.size() < MAX_CAS
            && old.getNotAfter().toInstant().isAfter(now)
            && !cas.contains(old)) {
          cas.add(old);
        }
      }
    }
    return WebhookTls.pemBundle(cas).getBytes(StandardCharsets.UTF_8);
  }

  private static List<X509Certificate> certificates(byte[] bundle) {
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(bundle))) {
        out.add((X509Certificate) c);
      }
      return out;
    } catch (CertificateException e) {
      // a live bundle we cannot read is replaced rather than kept
      return List.of();
    }
  }

  private interface Write {
    void run() throws ApiException;
  }

  private static void retryingConflicts(Write write) throws ApiException {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private void applyValidating(AdmissionregistrationV1Api api, byte[] caBundle, Instant now)
      throws ApiException {
    V1ValidatingWebhookConfiguration liveValidating = null;
    try {
      liveValidating = api.readValidatingWebhookConfiguration(name).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
    if (liveValidating == null) {
      api.createValidatingWebhookConfiguration(validating(caBundle)).execute();
    } else {
      byte[] live =
          liveValidating.getWebhooks() == null || liveValidating.getWebhooks().isEmpty()
              ? null
              : liveValidating.getWebhooks().get(0).getClientConfig().getCaBundle();
      V1ValidatingWebhookConfiguration validating = validating(merged(caBundle, live, now));
      validating.getMetadata().resourceVersion(liveValidating.getMetadata().getResourceVersion());
      api.replaceValidatingWebhookConfiguration(name, validating).execute();
    }
  }

  private void applyMutating(AdmissionregistrationV1Api api, byte[] caBundle, Instant now)
      throws ApiException {
    V1MutatingWebhookConfiguration liveMutating = null;
    try {
      liveMutating = api.readMutatingWebhookConfiguration(name).execute();
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
    if (liveMutating == null) {
      api.createMutatingWebhookConfiguration(mutating(caBundle)).execute();
    } else {
      byte[] live =
          liveMutating.getWebhooks() == null || liveMutating.getWebhooks().isEmpty()
              ? null
              : liveMutating.getWebhooks().get(0).getClientConfig().getCaBundle();
      V1MutatingWebhookConfiguration mutating = mutating(merged(caBundle, live, now));
      mutating.getMetadata().resourceVersion(liveMutating.getMetadata().getResourceVersion());
      api.replaceMutatingWebhookConfiguration(name, mutating).execute();
    }
  }

  /** Deletes both configurations (tests; an operator uninstalling). */
  void delete(ApiClient client) throws ApiException {
    AdmissionregistrationV1Api api = new AdmissionregistrationV1Api(client);
    api.deleteValidatingWebhookConfiguration(name).execute();
    api.deleteMutatingWebhookConfiguration(name).execute();
  }

  V1ValidatingWebhookConfiguration validating(byte[] caBundle) {
    return new V1ValidatingWebhookConfiguration()
        .apiVersion("admissionregistration.k8s.io/v1")
        .kind("ValidatingWebhookConfiguration")
        .metadata(new V1ObjectMeta().name(name))
        .webhooks(
            List.of(
                new V1ValidatingWebhook()
                    .name("validate.ippools." + GROUP)
                    .clientConfig(clientConfig(AdmissionReviews.VALIDATE, caBundle))
                    .rules(List.of(rule("ippools", "CREATE", "UPDATE", "DELETE")))
                    .namespaceSelector(selector())
                    .failurePolicy("Fail")
                    .sideEffects("None")
                    .timeoutSeconds(TIMEOUT_SECONDS)
                    .admissionReviewVersions(List.of("v1")),
                new V1ValidatingWebhook()
                    .name("validate.virtualmachinenetworkconfigs." + GROUP)
                    .clientConfig(clientConfig(AdmissionReviews.VALIDATE, caBundle))
                    .rules(List.of(rule("virtualmachinenetworkconfigs", "CREATE")))
                    .namespaceSelector(selector())
                    .failurePolicy("Fail")
                    .sideEffects("None")
                    .timeoutSeconds(TIMEOUT_SECONDS)
                    .admissionReviewVersions(List.of("v1"))));
  }

  V1MutatingWebhookConfiguration mutating(byte[] caBundle) {
    return new V1MutatingWebhookConfiguration()
        .apiVersion("admissionregistration.k8s.io/v1")
        .kind("MutatingWebhookConfiguration")
        .metadata(new V1ObjectMeta().name(name))
        .webhooks(
            List.of(
                new V1MutatingWebhook()
                    .name("mutate.ippools." + GROUP)
                    .clientConfig(clientConfig(AdmissionReviews.MUTATE, caBundle))
                    .rules(List.of(rule("ippools", "CREATE")))
                    .namespaceSelector(selector())
                    .failurePolicy("Fail")
                    .sideEffects("None")
                    .reinvocationPolicy("Never")
                    .timeoutSeconds(TIMEOUT_SECONDS)
                    .admissionReviewVersions(List.of("v1"))));
  }

  private V1LabelSelector selector() {
    return new V1LabelSelector().matchLabels(new java.util.HashMap<>(namespaceSelector));
  }

  private static V1RuleWithOperations rule(String resource, String... operations) {
    return new V1RuleWithOperations()
        .apiGroups(List.of(GROUP))
        .apiVersions(List.of("v1alpha1"))
        .resources(List.of(resource))
        .operations(List.of(operations))
        .scope("Namespaced");
  }

  private AdmissionregistrationV1WebhookClientConfig clientConfig(String path, byte[] caBundle) {
    AdmissionregistrationV1WebhookClientConfig config =
        new AdmissionregistrationV1WebhookClientConfig().caBundle(caBundle);
    if (base != null) {
      return config.url(base + path);
    }
    String[] nsRest = service.split("/", 2);
    String[] namePort = nsRest[1].split(":", 2);
    return config.service(
        new AdmissionregistrationV1ServiceReference()
            .namespace(nsRest[0])
            .name(namePort[0])
            .port(namePort.length > 1 ? Integer.parseInt(namePort[1]) : 443)
            .path(path));
  }
}
