package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import dev.elector.lock.LockFailure;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The public one-object watch on a real server, on a core-group resource (ConfigMaps). */
@KubeTest
class KubeObjectWatchIT {

  /** Records what the watch reports: a value of key "v", "absent", or "failed: message". */
  private static final class Recorder implements KubeObjectWatch.Listener {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final List<KubeObjectWatch.Failure> failures = new CopyOnWriteArrayList<>();

    @Override
    public void state(Optional<JsonObject> object) {
      seen.add(object.map(o -> o.getAsJsonObject("data").get("v").getAsString()).orElse("absent"));
    }

    @Override
    public void failed(KubeObjectWatch.Failure failure, boolean firstInARow) {
      seen.add("failed" + (firstInARow ? " first" : ""));
      failures.add(failure);
    }
  }

  private static KubeObjectWatch watch(
      ApiClient client, String namespace, String name, Recorder recorder) {
    return KubeObjectWatch.newBuilder()
        .apiClient(client)
        .version("v1")
        .resource("configmaps")
        .namespace(namespace)
        .name(name)
        .identity("the test")
        .listener(recorder)
        .build();
  }

  private static V1ConfigMap map(String name, String value) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().name(name)).data(Map.of("v", value));
  }

  @Test
  void reportsTheStateAfterTheListThenEveryChangeOfThatObjectOnly(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    CoreV1Api core = new CoreV1Api(cluster.admin());
    String ns = namespace.name();
    Recorder recorder = new Recorder();
    KubeObjectWatch watch = watch(cluster.admin(), ns, "watched", recorder);
    watch.start();
    try {
      Await.until("the first list", Duration.ofSeconds(5), () -> recorder.seen.size() == 1);
      core.createNamespacedConfigMap(ns, map("watched", "one")).execute();
      core.createNamespacedConfigMap(ns, map("other", "x")).execute();
      core.replaceNamespacedConfigMap(
              "watched",
              ns,
              core.readNamespacedConfigMap("watched", ns).execute().data(Map.of("v", "two")))
          .execute();
      core.deleteNamespacedConfigMap("watched", ns).execute();
      Await.until("four states", Duration.ofSeconds(5), () -> recorder.seen.size() == 4);
      assertEquals(List.of("absent", "one", "two", "absent"), recorder.seen);
      assertThrows(IllegalStateException.class, watch::start);
    } finally {
      watch.close();
    }
    core.createNamespacedConfigMap(ns, map("watched", "after close")).execute();
    core.readNamespacedConfigMap("watched", ns).execute();
    assertEquals(4, recorder.seen.size(), "nothing after close: " + recorder.seen);
  }

  @Test
  void withoutPermissionTheFailureNamesTheRuleOnceAStreakAndTheWatchRecoversWhenGranted(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeNamespace own = cluster.createNamespace("object-watch");
    KubeIdentity nobody = cluster.newIdentity(own, "nobody");
    new CoreV1Api(cluster.admin())
        .createNamespacedConfigMap(own.name(), map("pool", "v1"))
        .execute();
    Recorder recorder = new Recorder();
    KubeObjectWatch watch = watch(nobody.client(), own.name(), "pool", recorder);
    watch.start();
    try {
      Await.until("two failures", Duration.ofSeconds(10), () -> recorder.failures.size() >= 2);
      assertEquals(List.of("failed first", "failed"), recorder.seen.subList(0, 2));
      KubeObjectWatch.Failure failure = recorder.failures.get(0);
      assertEquals(LockFailure.Kind.FORBIDDEN, failure.kind());
      assertTrue(
          failure
              .message()
              .contains(
                  "the test is not allowed to list configmaps \"pool\""
                      + " in namespace "
                      + own.name()),
          failure.message());
      assertTrue(
          failure
              .message()
              .contains(
                  "{apiGroups: [\"\"], resources: [\"configmaps\"],"
                      + " verbs: [\"list\"], resourceNames: [\"pool\"]}"),
          failure.message());

      cluster.grant(
          nobody,
          own,
          List.of(
              new io.kubernetes.client.openapi.models.V1PolicyRule()
                  .apiGroups(List.of(""))
                  .resources(List.of("configmaps"))
                  .resourceNames(List.of("pool"))
                  .verbs(List.of("list", "watch"))));
      Await.until(
          "the state once allowed", Duration.ofSeconds(30), () -> recorder.seen.contains("v1"));
    } finally {
      watch.close();
    }
  }

  @Test
  void badOptionsAreListedTogether() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> KubeObjectWatch.newBuilder().resource("Leases").build());
    for (String part :
        new String[] {
          "apiClient is missing",
          "version is missing",
          "resource \"Leases\" is not a plural resource name",
          "namespace is missing",
          "name is missing",
          "listener is missing"
        }) {
      assertTrue(e.getMessage().contains(part), "missing " + part + " in " + e.getMessage());
    }
  }
}
