package dev.elector.controller;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1ServiceReference;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What upstream's webhook server wrote at run time, outside its Helm release, removed once upstream
 * is gone. Upstream's admission webhook (harvester/webhook) registers the
 * ValidatingWebhookConfiguration and MutatingWebhookConfiguration {@value #NAME} itself, with
 * failurePolicy Fail on the validating one, and keeps its certificate in the Secrets {@value
 * #NAME}-ca and {@value #NAME}-tls. Disabling upstream's add-on removes its Service but not these,
 * so the API server refuses every IPPool and VirtualMachineNetworkConfig write (it cannot reach the
 * Service) until they are deleted.
 *
 * <p>Upstream counts as gone when its webhook Service {@code NS/}{@value #NAME} is absent; while
 * that Service exists nothing is touched, so a controller started before upstream is uninstalled
 * does not break the upstream webhook that still serves. A configuration is deleted only if every
 * webhook in it calls that Service, and only at the resourceVersion that was read; a Secret only if
 * it is a TLS Secret. Each object is named, so the rights are get and delete on exactly these names
 * (and get on the one Service).
 *
 * <p>The term's work looks at its start and then every {@code recheck} until {@link #cleared()}:
 * upstream is gone and its objects are deleted (or found absent), or the rights to look are
 * missing. A changed object (the delete's precondition fails) is looked at again at the next look.
 * One thread looks at a time.
 */
final class UpstreamLeftovers {
  /** The name upstream's webhook server gives its Service and its webhook configurations. */
  static final String NAME = "harvester-vm-dhcp-controller-webhook";

  private static final Logger log = LoggerFactory.getLogger(UpstreamLeftovers.class);

  private final LeaderWrites writes;
  private final String namespace;
  private final EventLog events;
  private final Duration recheck;
  private volatile boolean done;
  private boolean toldUpstreamServes;

  /**
   * @param namespace where upstream ran (its Service and Secrets)
   * @param recheck how often the caller looks again while upstream's Service exists (for the log)
   */
  UpstreamLeftovers(LeaderWrites writes, String namespace, EventLog events, Duration recheck) {
    this.writes = writes;
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.events = events;
    this.recheck = recheck;
  }

  /**
   * Deletes upstream's leftovers if upstream is gone. Never throws: a refusal (403) is logged with
   * the rules to grant and ends the looking for this term; any other failure is logged and the next
   * look tries again.
   *
   * @return whether this call deleted anything
   */
  boolean clear() {
    if (done) {
      return false;
    }
    try {
      return look();
    } catch (ApiException e) {
      if (e.getCode() == 403) {
        done = true;
        log.warn(
            "cannot look for upstream's leftover webhook configurations (HTTP {}); grant get and delete"
                + " on validatingwebhookconfigurations and mutatingwebhookconfigurations named {},"
                + " get on the Service {} and get and delete on the Secrets {}-ca and {}-tls in {}"
                + " (the chart does with upstreamMigration: true)",
            e.getCode(),
            NAME,
            NAME,
            NAME,
            NAME,
            namespace);
      } else {
        log.warn(
            "looking for upstream's leftover webhook configurations failed (HTTP {}); trying again"
                + " in {} ms",
            e.getCode(),
            recheck.toMillis());
      }
      return false;
    }
  }

  private boolean look() throws ApiException {
    if (writes.serviceExists(namespace, NAME)) {
      if (!toldUpstreamServes) {
        toldUpstreamServes = true;
        log.info(
            "upstream's webhook Service {}/{} exists: upstream still runs, so its webhook"
                + " configurations {} are left as they are (looked at again every {} ms; disable"
                + " upstream's add-on to finish the takeover)",
            namespace,
            NAME,
            NAME,
            recheck.toMillis());
      }
      return false;
    }
    boolean deleted = false;
    for (WebhookKind kind : WebhookKind.values()) {
      deleted |= deleteConfiguration(kind);
    }
    for (String secret : List.of(NAME + "-ca", NAME + "-tls")) {
      deleted |= deleteSecret(secret);
    }
    done = true;
    return deleted;
  }

  /** Whether the leftovers were found absent or deleted in this term. */
  boolean cleared() {
    return done;
  }

  private boolean deleteConfiguration(WebhookKind kind) throws ApiException {
    LeaderWrites.WebhookConfiguration found = writes.readWebhookConfiguration(kind, NAME);
    if (found == null) {
      return false;
    }
    List<AdmissionregistrationV1WebhookClientConfig> clients = found.clientConfigs();
    if (clients.isEmpty() || !clients.stream().allMatch(this::callsUpstreamService)) {
      log.warn(
          "{} {} does not only call upstream's Service {}/{}; left as it is",
          kind.kind(),
          NAME,
          namespace,
          NAME);
      return false;
    }
    if (!writes.deleteWebhookConfiguration(kind, found.metadata())) {
      return false;
    }
    log.info(
        "deleted upstream's leftover {} {}: its Service {}/{} is gone, so the API server could"
            + " not call it{}",
        kind.kind(),
        NAME,
        namespace,
        NAME,
        kind == WebhookKind.VALIDATING
            ? " and refused every write it covers (failurePolicy Fail)"
            : "");
    events.emit("UPSTREAM_LEFTOVER", "action", "deleted", "kind", kind.kind(), "name", NAME);
    return true;
  }

  private boolean callsUpstreamService(AdmissionregistrationV1WebhookClientConfig client) {
    AdmissionregistrationV1ServiceReference service = client == null ? null : client.getService();
    return service != null
        && namespace.equals(service.getNamespace())
        && NAME.equals(service.getName());
  }

  private boolean deleteSecret(String name) throws ApiException {
    V1Secret secret = writes.readSecret(namespace, name);
    if (secret == null) {
      return false;
    }
    if (!"kubernetes.io/tls".equals(secret.getType())) {
      log.warn(
          "Secret {}/{} is not a TLS Secret, so not upstream's webhook certificate; left as it is",
          namespace,
          name);
      return false;
    }
    V1ObjectMeta metadata = Objects.requireNonNull(secret.getMetadata());
    if (!writes.deleteSecret(metadata)) {
      return false;
    }
    log.info("deleted upstream's leftover webhook certificate Secret {}/{}", namespace, name);
    events.emit(
        "UPSTREAM_LEFTOVER", "action", "deleted", "kind", "Secret", "name", namespace + "/" + name);
    return true;
  }

  /** The two kinds of webhook configuration upstream registers. */
  enum WebhookKind {
    VALIDATING("ValidatingWebhookConfiguration"),
    MUTATING("MutatingWebhookConfiguration");

    private final String kind;

    WebhookKind(String kind) {
      this.kind = kind;
    }

    String kind() {
      return kind;
    }
  }
}
