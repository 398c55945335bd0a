package dev.elector.controller;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.time.Duration;

/**
 * Whether a pool's network exists: the Multus NetworkAttachmentDefinition named by its
 * spec.networkName. Without it the agent's pods cannot attach to the network, so the pool says so
 * in its {@code NetworkReady} condition, and the controller looks again every {@link #RECHECK}.
 */
final class NetworkAttachments {
  static final String GROUP = "k8s.cni.cncf.io";
  static final String VERSION = "v1";
  static final String PLURAL = "network-attachment-definitions";

  /** How often a pool whose network is missing is looked at again. */
  static final Duration RECHECK = Duration.ofSeconds(10);

  /** The answer, as the condition shows it. */
  record Check(boolean found, String reason, String message) {}

  private final CustomObjectsApi api;

  NetworkAttachments(ApiClient client) {
    this.api = new CustomObjectsApi(client);
  }

  /** Looks up {@code network}, "NAMESPACE/NAME" (a valid pool's spec.networkName). */
  Check check(String network) {
    int slash = network.indexOf('/');
    try {
      api.getNamespacedCustomObject(
              GROUP, VERSION, network.substring(0, slash), PLURAL, network.substring(slash + 1))
          .execute();
      return new Check(true, "NetworkFound", "NetworkAttachmentDefinition " + network + " exists");
    } catch (ApiException e) {
      return fromError(network, e.getCode(), e.getResponseBody());
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
