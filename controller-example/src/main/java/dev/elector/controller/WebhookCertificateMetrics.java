package dev.elector.controller;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The webhook certificate's meters: {@code ippool_webhook_certificate_expiry_seconds}, when the
 * served certificate ends (seconds since the epoch, NaN while no webhook serves), so an alert can
 * fire on {@code ippool_webhook_certificate_expiry_seconds - time() < 7 * 86400}; {@code
 * ippool_webhook_certificate_rotations_total}, certificates swapped in while the replica runs; and
 * {@code ippool_webhook_certificate_check_failures_total}, checks that could not read, renew or
 * register it.
 */
final class WebhookCertificateMetrics {
  private final Supplier<WebhookCertificates> certificates;

  private WebhookCertificateMetrics(Supplier<WebhookCertificates> certificates) {
    this.certificates = certificates;
  }

  /**
   * Registers the meters; the registry holds them weakly, so the caller keeps the returned object
   * as long as they are scraped.
   */
  static WebhookCertificateMetrics bind(
      Supplier<WebhookCertificates> certificates, MeterRegistry registry) {
    WebhookCertificateMetrics metrics = new WebhookCertificateMetrics(certificates);
    Gauge.builder("ippool.webhook.certificate.expiry", metrics, WebhookCertificateMetrics::expiry)
        .description("when the served webhook certificate ends, in seconds since the epoch")
        .baseUnit("seconds")
        .register(registry);
    FunctionCounter.builder("ippool.webhook.certificate.rotations", metrics, m -> m.count(true))
        .description("webhook certificates swapped in while the replica runs")
        .register(registry);
    FunctionCounter.builder(
            "ippool.webhook.certificate.check.failures", metrics, m -> m.count(false))
        .description("webhook certificate checks that failed (read, renewal or caBundle write)")
        .register(registry);
    return metrics;
  }

  private double expiry() {
    WebhookCertificates c = certificates.get();
    return c == null ? Double.NaN : c.servingEnds().getEpochSecond();
  }

  private double count(boolean rotations) {
    WebhookCertificates c = certificates.get();
    return c == null ? 0 : rotations ? c.rotations() : c.failures();
  }
}
