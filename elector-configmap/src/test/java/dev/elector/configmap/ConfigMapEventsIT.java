package dev.elector.configmap;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code recordEvents(true)} on the ConfigMap lock: the Events land on the ConfigMap. */
@KubeTest
class ConfigMapEventsIT {
  private static final Path RBAC = Path.of("..", "deploy", "configmap", "rbac.yaml");

  @Test
  void aTermIsRecordedOnTheConfigMapUnderTheShippedRoles(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    List<V1PolicyRule> rules = new ArrayList<>(KubeCluster.roleRules(RBAC));
    rules.addAll(KubeCluster.roleRules(Path.of("..", "deploy", "configmap", "rbac-events.yaml")));
    KubeIdentity who = cluster.newIdentity(namespace, "cm-events");
    cluster.grant(who, namespace, rules);
    String name =
        KubeCluster.roleRules(RBAC).stream()
            .filter(r -> r.getResourceNames() != null)
            .flatMap(r -> r.getResourceNames().stream())
            .findFirst()
            .orElseThrow();
    LeaderElector elector =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(
                    ConfigMapLock.newBuilder(who.client())
                        .namespace(namespace.name())
                        .name(name)
                        .identity("pod-c")
                        .recordEvents(true)
                        .build())
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(500))
                .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
                .build());
    await("pod-c leads").atMost(Duration.ofSeconds(15)).until(elector::isLeader);
    elector.close();

    CoreV1Api core = new CoreV1Api(cluster.admin());
    String uid =
        core.readNamespacedConfigMap(name, namespace.name()).execute().getMetadata().getUid();
    String selector =
        "involvedObject.kind=ConfigMap,involvedObject.name=" + name + ",involvedObject.uid=" + uid;
    await("both events")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                core.listNamespacedEvent(namespace.name())
                        .fieldSelector(selector)
                        .execute()
                        .getItems()
                        .size()
                    == 2);
    List<CoreV1Event> events =
        core.listNamespacedEvent(namespace.name()).fieldSelector(selector).execute().getItems();
    assertEquals(
        List.of("pod-c became leader", "pod-c stopped leading (closed)"),
        events.stream().map(CoreV1Event::getMessage).sorted().toList());
    for (CoreV1Event event : events) {
      assertEquals("v1", event.getInvolvedObject().getApiVersion());
      assertEquals("LeaderElection", event.getReason());
      assertEquals("elector", event.getReportingComponent());
      assertEquals("pod-c", event.getReportingInstance());
    }
  }
}
