package dev.elector.controller;

import dev.elector.time.Scheduler;
import io.kubernetes.client.openapi.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook's serving certificate current while the replica runs. Every check asks the
 * {@link Source} for the certificate to serve (the shared Secret, renewing it when due; a mounted
 * directory; or one kept in memory) and, when it differs from the one served, swaps it into the
 * listener's {@link ServingKeys}: the next handshake presents it, no connection is dropped.
 *
 * <p>The CA is stable: a renewal issues a new serving certificate from the same CA, so the webhook
 * configurations' caBundle does not change and the API server trusts the old and the new
 * certificate alike; there is no moment at which it could reject either. Only when the CA itself
 * changes (its own end is near, or the Secret was replaced) is the caBundle written, with the new
 * CA beside the old ones that have not ended ({@link WebhookRegistration}), and the new certificate
 * is served only at the following check, after the API server has had time to pick the bundle up.
 * At start, before the listener serves anything, both happen at once.
 *
 * <p>Checks run on the given {@link Scheduler}, one at a time; the next comes when the certificate
 * falls due, at most {@link Timing#checkEvery()} later (so replicas pick up another replica's
 * renewal), and {@link Timing#retryAfter()} after a failed one, doubling up to {@link
 * Timing#checkEvery()} while failures continue. {@link #problem()} reports the certificate
 * unhealthy once it ends within {@link Timing#unhealthyBefore()}: by then renewal has failed for
 * weeks, and a restarted replica renews at start.
 */
final class WebhookCertificates implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookCertificates.class);

  /** Where the certificate to serve comes from. */
  @FunctionalInterface
  interface Source {
    /**
     * The certificate to serve now, renewed if due.
     *
     * @param serving the one served, null at start
     */
    WebhookTls obtain(WebhookTls serving) throws ApiException;
  }

  /** Writes a CA bundle into the webhook configurations. */
  @FunctionalInterface
  interface Registrar {
    void register(byte[] caBundle) throws ApiException;
  }

  /**
   * The certificate's lifetimes and the check cadence.
   *
   * @param validity how long a serving certificate issued here lasts
   * @param renewBefore a certificate ending within this is renewed
   * @param checkEvery the longest time between two checks
   * @param retryAfter the time after a failed check, or after writing a new CA into the bundle
   * @param unhealthyBefore a certificate ending within this makes {@link #problem()} report it
   */
  record Timing(
      Duration validity,
      Duration renewBefore,
      Duration checkEvery,
      Duration retryAfter,
      Duration unhealthyBefore) {
    /** One-year certificates renewed 30 days before their end, checked every 10 minutes. */
    static final Timing DEFAULT =
        new Timing(
            WebhookTls.CERT_VALIDITY,
            WebhookTls.RENEW_BEFORE,
            Duration.ofMinutes(10),
            Duration.ofMinutes(1),
            Duration.ofDays(7));

    Timing {
      for (Duration d : new Duration[] {validity, renewBefore, checkEvery, retryAfter}) {
        if (d == null || d.isNegative() || d.isZero()) {
          throw new IllegalArgumentException(
              "webhook certificate timings must be positive: " + d + "; give a positive duration");
        }
      }
      if (renewBefore.compareTo(validity) >= 0) {
        throw new IllegalArgumentException(
            "renewBefore "
                + renewBefore
                + " must be shorter than validity "
                + validity
                + "; lower renewBefore or raise validity");
      }
      if (unhealthyBefore == null || unhealthyBefore.compareTo(renewBefore) >= 0) {
        throw new IllegalArgumentException(
            "unhealthyBefore "
                + unhealthyBefore
                + " must be shorter than renewBefore "
                + renewBefore
                + "; a certificate is reported only after its renewal has failed");
      }
    }
  }

  private final Source source;
  private final Registrar registrar;
  private final Timing timing;
  private final Clock clock;
  private final Scheduler scheduler;
  private final ServingKeys keys;
  private final AtomicLong rotations = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile WebhookTls serving;
  private volatile Instant servingEnds;
  private int consecutiveFailures;
  private volatile String lastFailure;
  private String registeredCa;
  private Future<?> next;
  private boolean closed;

  private WebhookCertificates(
      ServingKeys keys,
      Source source,
      Registrar registrar,
      Timing timing,
      Clock clock,
      Scheduler scheduler) {
    this.keys = keys;
    this.source = source;
    this.registrar = registrar;
    this.timing = timing;
    this.clock = clock;
    this.scheduler = scheduler;
  }

  /**
   * Obtains the first certificate (registering its CA when {@code registrar} is not null) and
   * schedules the checks.
   *
   * @param registrar writes the caBundle, or null when something else keeps it (cert-manager)
   * @throws ApiException when the first certificate cannot be obtained or registered
   */
  static WebhookCertificates start(
      Source source, Registrar registrar, Timing timing, Clock clock, Scheduler scheduler)
      throws ApiException {
    return start(new ServingKeys(), source, registrar, timing, clock, scheduler);
  }

  /** As above, serving through {@code keys} (a listener already bound to them). */
  static WebhookCertificates start(
      ServingKeys keys,
      Source source,
      Registrar registrar,
      Timing timing,
      Clock clock,
      Scheduler scheduler)
      throws ApiException {
    WebhookCertificates certificates =
        new WebhookCertificates(keys, source, registrar, timing, clock, scheduler);
    synchronized (certificates) {
      WebhookTls first = source.obtain(null);
      certificates.register(first);
      certificates.keys.serve(first);
      certificates.serving = first;
      certificates.servingEnds = first.notAfter();
      certificates.schedule(certificates.untilDue());
    }
    return certificates;
  }

  /** A source that renews a certificate kept in memory from its own CA, made at start. */
  static Source inMemory(java.util.List<String> hosts, Clock clock, Timing timing) {
    return new Source() {
      private WebhookTls issued;
      private Instant renewAt;
      private Instant caEnds;

      @Override
      public WebhookTls obtain(WebhookTls serving) {
        Instant now = clock.instant();
        if (issued != null && now.isBefore(renewAt)) {
          return issued;
        }
        issued =
            issued == null || caEnds.isBefore(now.plus(timing.validity()))
                ? WebhookTls.generate(hosts, clock, timing.validity())
                : WebhookTls.issue(
                    issued.caPem(), issued.caKeyPem(), hosts, clock, timing.validity());
        renewAt = issued.notAfter().minus(timing.renewBefore());
        caEnds = issued.caCertificate().getNotAfter().toInstant();
        return issued;
      }
    };
  }

  /** The listener's key manager; its context presents the current certificate. */
  ServingKeys keys() {
    return keys;
  }

  /** The certificate served. */
  WebhookTls serving() {
    return serving;
  }

  /** When the certificate served ends. */
  Instant servingEnds() {
    return servingEnds;
  }

  /** Certificates swapped in since start. */
  long rotations() {
    return rotations.get();
  }

  /** Checks that failed since start. */
  long failures() {
    return failures.get();
  }

  /** Why the certificate is unhealthy (it ends within {@code unhealthyBefore}), else empty. */
  Optional<String> problem() {
    Instant ends = servingEnds;
    Instant now = clock.instant();
    if (ends.isAfter(now.plus(timing.unhealthyBefore()))) {
      return Optional.empty();
    }
    String failure = lastFailure;
    return Optional.of(
        "webhook certificate "
            + (ends.isAfter(now) ? "ends at " : "ended at ")
            + ends
            + " and was not renewed"
            + (failure == null ? "" : " (last failure: " + failure + ")"));
  }

  /** One line for /healthz. */
  String describe() {
    return "webhook certificate until " + servingEnds;
  }

  private synchronized void check() {
    if (closed) {
      return;
    }
    Duration delay;
    try {
      WebhookTls next = source.obtain(serving);
      if (next.certificatePem().equals(serving.certificatePem())) {
        delay = untilDue();
      } else if (registrar != null && !next.caPem().equals(registeredCa)) {
        // a new CA: into the bundle now, served once the API server has read the bundle
        register(next);
        log.info(
            "webhook CA changed; caBundle written, the new certificate is served in {}",
            timing.retryAfter());
        delay = timing.retryAfter();
      } else {
        keys.serve(next);
        Instant was = servingEnds;
        serving = next;
        servingEnds = next.notAfter();
        rotations.incrementAndGet();
        log.info(
            "webhook certificate renewed in process: serving one until {} (was until {})",
            servingEnds,
            was);
        delay = untilDue();
      }
      lastFailure = null;
      consecutiveFailures = 0;
    } catch (ApiException | RuntimeException e) {
      failures.incrementAndGet();
      consecutiveFailures++;
      lastFailure =
          e instanceof ApiException a ? a.getCode() + " " + a.getResponseBody() : e.toString();
      // retryAfter, doubling up to checkEvery; warned at the 1st, 2nd, 4th, 8th... failure
      delay = timing.retryAfter().multipliedBy(1L << Math.min(consecutiveFailures - 1, 20));
      if (delay.compareTo(timing.checkEvery()) > 0) {
        delay = timing.checkEvery();
      }
      if (Integer.bitCount(consecutiveFailures) == 1) {
        log.warn(
            "webhook certificate check failed {} time(s) in a row ({}); serving the one until {},"
                + " retrying in {}",
            consecutiveFailures,
            lastFailure,
            servingEnds,
            delay);
      }
    }
    schedule(delay);
  }

  private void register(WebhookTls tls) throws ApiException {
    if (registrar != null && !tls.caPem().equals(registeredCa)) {
      registrar.register(tls.caBundle());
      registeredCa = tls.caPem();
    }
  }

  /** Until the served certificate falls due, within [retryAfter, checkEvery]. */
  private Duration untilDue() {
    Duration due = Duration.between(clock.instant(), servingEnds.minus(timing.renewBefore()));
    if (due.isNegative() || due.isZero()) {
      return timing.retryAfter(); // due but not renewed (a mounted directory not yet updated)
    }
    return due.compareTo(timing.checkEvery()) > 0 ? timing.checkEvery() : due;
  }

  private void schedule(Duration delay) {
    next = scheduler.schedule(this::check, Math.max(0, delay.toNanos()));
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (next != null) {
      next.cancel(false);
    }
  }
}
