package dev.elector.reliability;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.HashMap;
import java.util.Map;

/**
 * A resource that enforces fencing tokens, as a system a leader writes to should: a ConfigMap that
 * accepts a write only with a token at least as new as the newest it has accepted. The check and
 * the write are one compare-and-swap on the ConfigMap's resourceVersion, so a stale leader's write
 * that was in flight while a newer leader wrote is refused.
 */
final class FencedResource {
  /** What became of a write. */
  enum Outcome {
    ACCEPTED,
    REFUSED_STALE_TOKEN
  }

  private final CoreV1Api api;
  private final String namespace;
  private final String name;

  FencedResource(ApiClient client, String namespace, String name) {
    this.api = new CoreV1Api(client);
    this.namespace = namespace;
    this.name = name;
  }

  /** Writes on behalf of {@code writer} holding fencing token {@code token}. */
  Outcome write(long token, String writer) throws ApiException {
    while (true) {
      V1ConfigMap current;
      try {
        current = api.readNamespacedConfigMap(name, namespace).execute();
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        try {
          api.createNamespacedConfigMap(
                  namespace,
                  new V1ConfigMap()
                      .apiVersion("v1")
                      .kind("ConfigMap")
                      .metadata(new V1ObjectMeta().name(name))
                      .data(Map.of("token", "-1", "holder", "", "writes", "0")))
              .execute();
        } catch (ApiException raced) {
          if (raced.getCode() != 409) {
            throw raced;
          }
        }
        continue;
      }
      Map<String, String> data = current.getData() == null ? Map.of() : current.getData();
      long newest = Long.parseLong(data.getOrDefault("token", "-1"));
      if (token < newest) {
        return Outcome.REFUSED_STALE_TOKEN;
      }
      Map<String, String> next = new HashMap<>(data);
      next.put("token", Long.toString(token));
      next.put("holder", writer);
      next.put("writes", Long.toString(Long.parseLong(data.getOrDefault("writes", "0")) + 1));
      try {
        api.replaceNamespacedConfigMap(name, namespace, current.data(next)).execute();
        return Outcome.ACCEPTED;
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // someone wrote in between: decide again on what they wrote
      }
    }
  }

  /** Who made the newest accepted write. */
  String holder() throws ApiException {
    return api.readNamespacedConfigMap(name, namespace).execute().getData().get("holder");
  }

  /** The newest token accepted so far, -1 if none. */
  long newestToken() throws ApiException {
    V1ConfigMap current = api.readNamespacedConfigMap(name, namespace).execute();
    return Long.parseLong(current.getData().getOrDefault("token", "-1"));
  }
}
