package dev.elector.configmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.LeaderElector;
import dev.elector.k8s.AbstractKubeLockIT;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.testenv.Await;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The ConfigMap lock on a real API server, plus what only a ConfigMap can get wrong. Public so that
 * other ConfigMap backends (elector-fabric8) run the same scenarios with their own lock.
 */
public class ConfigMapLockIT extends AbstractKubeLockIT {

  @Override
  protected KubeLock newLock(ApiClient client, String namespace, String name, String identity) {
    return ConfigMapLock.newBuilder(client)
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(REQUEST_TIMEOUT)
        .build();
  }

  @Override
  protected List<Path> rbacManifests() {
    return List.of(
        Path.of(System.getProperty("elector.repository.root", ".."), "deploy/configmap/rbac.yaml"));
  }

  @Override
  protected void writeForeignRecord(
      String namespace,
      String name,
      String holder,
      int leaseDurationSeconds,
      Instant renewTime,
      long transitions)
      throws ApiException {
    // as client-go writes it: RFC 3339 without fraction
    String time = renewTime.truncatedTo(ChronoUnit.SECONDS).toString();
    writeAnnotation(
        namespace,
        name,
        "{\"holderIdentity\":\""
            + holder
            + "\",\"leaseDurationSeconds\":"
            + leaseDurationSeconds
            + ",\"acquireTime\":\""
            + time
            + "\",\"renewTime\":\""
            + time
            + "\",\"leaderTransitions\":"
            + transitions
            + "}");
  }

  @Override
  protected void editMetadata(
      String namespace, String name, String label, String value, @Nullable String preferredHolder)
      throws ApiException {
    CoreV1Api api = new CoreV1Api(admin);
    for (int attempt = 0; ; attempt++) {
      try {
        V1ConfigMap current = api.readNamespacedConfigMap(name, namespace).execute();
        current.getMetadata().putLabelsItem(label, value);
        if (preferredHolder != null) {
          current.getMetadata().putAnnotationsItem(LeaderRecord.PREFERRED_HOLDER, preferredHolder);
        }
        api.replaceNamespacedConfigMap(name, namespace, current).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt > 10) {
          throw e;
        }
      }
    }
  }

  private void writeAnnotation(String namespace, String name, String value) throws ApiException {
    CoreV1Api api = new CoreV1Api(admin);
    for (int attempt = 0; ; attempt++) {
      try {
        V1ConfigMap current = api.readNamespacedConfigMap(name, namespace).execute();
        Map<String, String> annotations =
            current.getMetadata().getAnnotations() == null
                ? new HashMap<>()
                : new HashMap<>(current.getMetadata().getAnnotations());
        annotations.put(ConfigMapLock.ANNOTATION, value);
        current.getMetadata().setAnnotations(annotations);
        api.replaceNamespacedConfigMap(name, namespace, current).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() == 404) {
          api.createNamespacedConfigMap(
                  namespace,
                  new V1ConfigMap()
                      .apiVersion("v1")
                      .kind("ConfigMap")
                      .metadata(
                          new V1ObjectMeta()
                              .name(name)
                              .annotations(Map.of(ConfigMapLock.ANNOTATION, value))))
              .execute();
          return;
        }
        if (e.getCode() != 409 || attempt > 10) {
          throw e;
        }
      }
    }
  }

  @Override
  protected void deleteObject(String namespace, String name) throws ApiException {
    new CoreV1Api(admin).deleteNamespacedConfigMap(name, namespace).execute();
  }

  @Override
  protected Optional<Stored> readStored(String namespace, String name) throws ApiException {
    try {
      V1ConfigMap map = new CoreV1Api(admin).readNamespacedConfigMap(name, namespace).execute();
      String json = map.getMetadata().getAnnotations().get(ConfigMapLock.ANNOTATION);
      JsonObject record = JsonParser.parseString(json).getAsJsonObject();
      return Optional.of(
          new Stored(
              record.get("holderIdentity").getAsString(),
              record.get("leaderTransitions").getAsLong()));
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Test
  void keepsTheConfigMapsDataLabelsAndOtherAnnotations() throws Exception {
    new CoreV1Api(admin)
        .createNamespacedConfigMap(
            namespace.name(),
            new V1ConfigMap()
                .apiVersion("v1")
                .kind("ConfigMap")
                .metadata(
                    new V1ObjectMeta()
                        .name(lockName())
                        .labels(Map.of("app", "mine"))
                        .annotations(Map.of("owner", "team-a")))
                .data(Map.of("config.yaml", "a: 1")))
        .execute();
    LeaderElector first = candidate("first");
    Await.until("first leads", Duration.ofSeconds(10), first::isLeader);
    long renewals = first.stats().totalCalls();
    Await.until(
        "a few renewals", Duration.ofSeconds(5), () -> first.stats().totalCalls() >= renewals + 3);

    V1ConfigMap map =
        new CoreV1Api(admin).readNamespacedConfigMap(lockName(), namespace.name()).execute();

    assertEquals(Map.of("config.yaml", "a: 1"), map.getData());
    assertEquals(Map.of("app", "mine"), map.getMetadata().getLabels());
    assertEquals("team-a", map.getMetadata().getAnnotations().get("owner"));
    assertEquals("first", readStored(namespace.name(), lockName()).orElseThrow().holder());
  }

  @Test
  void garbledAnnotationIsOverwrittenOnlyAfterAWholeLease() throws Exception {
    writeAnnotation(namespace.name(), lockName(), "{not json");
    long start = System.nanoTime();
    LeaderElector java = candidate("java");

    Await.until("java takes the garbled lock over", Duration.ofSeconds(10), java::isLeader);

    Duration waited = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(waited.compareTo(LEASE) >= 0, "overwrote an unreadable record after " + waited);
    assertEquals("java", readStored(namespace.name(), lockName()).orElseThrow().holder());
  }
}
