package dev.elector.controller;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether a pool's network exists: the Multus NetworkAttachmentDefinition named by its
 * spec.networkName. Without it the agent's pods cannot attach to the network, so the pool says so
 * in its {@code NetworkReady} condition, and the controller looks again every {@link #RECHECK}.
 *
 * <p>A network that exists gets upstream's labels naming its pool, {@value #LABEL_POOL_NAMESPACE}
 * and {@value #LABEL_POOL_NAME}, so tools that find a network's pool through them keep working
 * (this controller finds pools by an index on spec.networkName and never reads them). The update is
 * conditional on the object's resourceVersion; one that fails is logged once and tried again at the
 * pool's next reconcile.
 */
final class NetworkAttachments {
  static final String GROUP = "k8s.cni.cncf.io";
  static final String VERSION = "v1";
  static final String PLURAL = "network-attachment-definitions";

  /** Upstream's label on a network naming its pool's namespace. */
  static final String LABEL_POOL_NAMESPACE = "network.harvesterhci.io/ippool-namespace";

  /** Upstream's label on a network naming its pool. */
  static final String LABEL_POOL_NAME = "network.harvesterhci.io/ippool-name";

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(NetworkAttachments.class);

  /** How often a pool whose network is missing is looked at again. */
  static final Duration RECHECK = Duration.ofSeconds(10);

  /** The answer, as the condition shows it. */
  record Check(boolean found, String reason, String message, String clusterNetwork) {
    Check(boolean found, String reason, String message) {
      this(found, reason, message, null);
    }
  }

  private final CustomObjectsApi api;

  NetworkAttachments(ApiClient client) {
    this.api = new CustomObjectsApi(client);
  }

  private final WarnOnce warnings = new WarnOnce();

  /** Looks up {@code network}, "NAMESPACE/NAME" (a valid pool's spec.networkName). */
  Check check(String network) {
    return check(network, null, null);
  }

  /**
   * Why {@code network} cannot serve a new pool, for the admission webhook: its
   * NetworkAttachmentDefinition, or Multus itself, is missing. Other failures to look (a 403, a
   * timeout) give empty: the pool is admitted and its NetworkReady condition says what went wrong.
   */
  Optional<String> missingForNewPool(String network) {
    Check check = check(network);
    boolean missing =
        "NetworkNotFound".equals(check.reason()) || "MultusNotInstalled".equals(check.reason());
    return missing
        ? Optional.of(
            check.message()
                + "; or run the controller with --allow-pool-before-network (chart value"
                + " allowPoolBeforeNetwork) to admit a pool before its network")
        : Optional.empty();
  }

  /**
   * Looks up {@code network} and, when it exists and {@code poolNamespace} is given, labels it with
   * the pool that serves it.
   */
  Check check(String network, String poolNamespace, String poolName) {
    int slash = network.indexOf('/');
    String namespace = network.substring(0, slash);
    String name = network.substring(slash + 1);
    try {
      Object nad = api.getNamespacedCustomObject(GROUP, VERSION, namespace, PLURAL, name).execute();
      if (poolNamespace != null) {
        label(nad, network, poolNamespace, poolName);
      }
      return new Check(
          true,
          "NetworkFound",
          "NetworkAttachmentDefinition " + network + " exists",
          clusterNetwork(nad));
    } catch (ApiException e) {
      return fromError(network, e.getCode(), e.getResponseBody());
    }
  }

  /** The NetworkAttachmentDefinition's Harvester cluster network label, or null. */
  static String clusterNetwork(Object nad) {
    if (nad instanceof java.util.Map<?, ?> object
        && object.get("metadata") instanceof java.util.Map<?, ?> metadata
        && metadata.get("labels") instanceof java.util.Map<?, ?> labels
        && labels.get(AgentPlacement.CLUSTER_NETWORK_LABEL) instanceof String value
        && !value.isBlank()) {
      return value;
    }
    return null;
  }

  @SuppressWarnings("unchecked") // a custom object reads as nested maps
  private void label(Object nad, String network, String poolNamespace, String poolName) {
    if (!(nad instanceof java.util.Map<?, ?> object)
        || !(object.get("metadata") instanceof java.util.Map<?, ?> metadata)) {
      return;
    }
    java.util.Map<String, Object> meta = (java.util.Map<String, Object>) metadata;
    java.util.Map<String, String> labels =
        meta.get("labels") instanceof java.util.Map<?, ?> l
            ? new java.util.LinkedHashMap<>((java.util.Map<String, String>) l)
            : new java.util.LinkedHashMap<>();
    if (poolNamespace.equals(labels.get(LABEL_POOL_NAMESPACE))
        && poolName.equals(labels.get(LABEL_POOL_NAME))) {
      return;
    }
    labels.put(LABEL_POOL_NAMESPACE, poolNamespace);
    labels.put(LABEL_POOL_NAME, poolName);
    meta.put("labels", labels);
    int slash = network.indexOf('/');
    try {
      api.replaceNamespacedCustomObject(
              GROUP,
              VERSION,
              network.substring(0, slash),
              PLURAL,
              network.substring(slash + 1),
              nad)
          .execute();
      log.info(
          "NetworkAttachmentDefinition {}: labelled with its IPPool {}/{}",
          network,
          poolNamespace,
          poolName);
    } catch (ApiException e) {
      if (warnings.first(network + "#labels", (long) e.getCode())) {
        log.warn(
            "NetworkAttachmentDefinition {}: cannot write the labels naming its IPPool (HTTP {});"
                + " the shipped ClusterRole grants update on network-attachment-definitions",
            network,
            e.getCode());
      }
    }
  }

  /** What a failed lookup means: a missing object, a missing CRD, a missing permission. */
  static Check fromError(String network, int code, String body) {
    if (code == 404 && namesTheObject(body)) {
      return new Check(
          false,
          "NetworkNotFound",
          "NetworkAttachmentDefinition "
              + network
              + " does not exist; create it, or fix spec.networkName (the agent's pods cannot attach"
              + " to the network without it)");
    }
    if (code == 404) {
      return new Check(
          false,
          "MultusNotInstalled",
          "the API server does not serve "
              + PLURAL
              + "."
              + GROUP
              + "; install Multus (its NetworkAttachmentDefinition CRD) so"
              + " that the agent's pods can attach to network "
              + network);
    }
    if (code == 403) {
      return new Check(
          false,
          "Forbidden",
          "the controller may not read NetworkAttachmentDefinition"
              + " "
              + network
              + "; add {apiGroups: [\""
              + GROUP
              + "\"], resources: [\""
              + PLURAL
              + "\"], verbs: [\"get\"]} to its ClusterRole (see deploy/controller/rbac.yaml)");
    }
    return new Check(
        false,
        "NetworkCheckFailed",
        "looking up NetworkAttachmentDefinition "
            + network
            + " failed with HTTP "
            + code
            + "; it is looked up again in "
            + RECHECK.toSeconds()
            + " s");
  }

  /** A 404 Status about the object itself carries its name in details; one for the type not. */
  private static boolean namesTheObject(String body) {
    if (body == null || body.isBlank()) {
      return false;
    }
    try {
      JsonElement root = JsonParser.parseString(body);
      if (!(root instanceof JsonObject status)
          || !(status.get("details") instanceof JsonObject details)) {
        return false;
      }
      JsonElement name = details.get("name");
      return name != null && name.isJsonPrimitive() && !name.getAsString().isEmpty();
    } catch (JsonParseException e) {
      return false;
    }
  }
}
