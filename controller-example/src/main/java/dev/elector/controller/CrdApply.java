package dev.elector.controller;

import dev.elector.ippool.NetworkCrds;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --apply-crds}: before its informers start, the controller creates the IPPool and
 * VirtualMachineNetworkConfig CRDs, or replaces them with the copies of this build, and waits until
 * they are Established. So an upgrade of the controller upgrades its CRDs, which Helm does not do
 * for a chart's {@code crds/}. A replace that changes nothing leaves the resourceVersion alone.
 */
final class CrdApply {
  private static final Logger log = LoggerFactory.getLogger(CrdApply.class);

  /** How long the CRDs may take to be Established. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private CrdApply() {}

  /**
   * Applies the CRDs.
   *
   * @return each CRD's name and what happened to it: created, updated or unchanged
   */
  static Map<String, String> apply(ApiClient client, Duration timeout)
      throws ApiException, InterruptedException {
    ApiextensionsV1Api api = new ApiextensionsV1Api(client);
    Map<String, String> before = new LinkedHashMap<>();
    for (var crd : NetworkCrds.definitions()) {
      String name = crd.getMetadata().getName();
      try {
        before.put(
            name,
            api.readCustomResourceDefinition(name).execute().getMetadata().getResourceVersion());
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        before.put(name, null);
      }
    }
    NetworkCrds.install(client, timeout);
    Map<String, String> outcome = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : before.entrySet()) {
      String now =
          api.readCustomResourceDefinition(e.getKey()).execute().getMetadata().getResourceVersion();
      String what =
          e.getValue() == null ? "created" : e.getValue().equals(now) ? "unchanged" : "updated";
      outcome.put(e.getKey(), what);
      log.info("CRD {}: {}", e.getKey(), what);
    }
    return outcome;
  }

  /** The message for a failed apply, with the fix. */
  static String describe(Exception e) {
    if (e instanceof ApiException api && api.getCode() == 403) {
      return "the API server refused (403): grant get and update on customresourcedefinitions"
          + " ippools.network.harvesterhci.io and virtualmachinenetworkconfigs.network.harvesterhci.io,"
          + " and create on customresourcedefinitions, or leave --apply-crds out and apply"
          + " deploy/crds yourself";
    }
    if (e instanceof ApiException api) {
      return "the API server answered " + api.getCode() + ": " + api.getResponseBody();
    }
    return e.getMessage();
  }
}
