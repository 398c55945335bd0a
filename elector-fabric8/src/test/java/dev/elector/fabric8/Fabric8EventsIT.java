package dev.elector.fabric8;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.testkit.kube.RoleRules;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code recordEvents(true)} on the fabric8 locks, on a real API server, under the shipped Roles:
 * after a takeover between two fabric8 candidates the Lease carries client-go's {@code became
 * leader} / {@code stopped leading} Events, found the way {@code kubectl describe} finds them.
 */
@KubeTest
class Fabric8EventsIT {
  private static final Path RBAC = Path.of("..", "deploy", "lease", "rbac.yaml");
  private static final Path RBAC_EVENTS = Path.of("..", "deploy", "lease", "rbac-events.yaml");
  private final List<LeaderElector> electors = new ArrayList<>();
  private final Fabric8Clients clients = new Fabric8Clients();

  @AfterEach
  void closeAll() {
    electors.forEach(LeaderElector::close);
    clients.close();
  }

  private LeaderElector start(
      KubeCluster cluster, KubeIdentity who, String namespace, String name, String identity) {
    Fabric8LeaseLock lock =
        Fabric8LeaseLock.newBuilder()
            .client(clients.of(cluster, who.client()))
            .namespace(namespace)
            .name(name)
            .identity(identity)
            .requestTimeout(Duration.ofSeconds(1))
            .recordEvents(true)
            .eventComponent("fabric8-events-it")
            .build();
    LeaderElector elector =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(lock)
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(500))
                .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
                .build());
    electors.add(elector);
    return elector;
  }

  @Test
  void afterATakeoverTheLeaseCarriesTheLeaderElectionEvents(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String name =
        RoleRules.fromYaml(RBAC).stream()
            .filter(r -> r.getResourceNames() != null)
            .flatMap(r -> r.getResourceNames().stream())
            .findFirst()
            .orElseThrow();
    List<V1PolicyRule> rules = new ArrayList<>(RoleRules.fromYaml(RBAC));
    rules.addAll(RoleRules.fromYaml(RBAC_EVENTS));
    KubeIdentity a = cluster.newIdentity(namespace, "f8-events-a");
    KubeIdentity b = cluster.newIdentity(namespace, "f8-events-b");
    cluster.grant(a, namespace, rules);
    cluster.grant(b, namespace, rules);

    LeaderElector first = start(cluster, a, namespace.name(), name, "pod-a");
    await("pod-a leads").atMost(Duration.ofSeconds(15)).until(first::isLeader);
    LeaderElector second = start(cluster, b, namespace.name(), name, "pod-b");
    await("pod-b follows")
        .atMost(Duration.ofSeconds(5))
        .until(() -> second.observedLeader().isPresent());
    first.close(); // steps down and releases: pod-b takes over
    await("pod-b takes over").atMost(Duration.ofSeconds(5)).until(second::isLeader);

    String uid =
        new CoordinationV1Api(cluster.admin())
            .readNamespacedLease(name, namespace.name())
            .execute()
            .getMetadata()
            .getUid();
    String describeSelector =
        "involvedObject.kind=Lease,involvedObject.name="
            + name
            + ",involvedObject.namespace="
            + namespace.name()
            + ",involvedObject.uid="
            + uid;
    List<String> expected =
        List.of("pod-a became leader", "pod-a stopped leading (closed)", "pod-b became leader");
    CoreV1Api core = new CoreV1Api(cluster.admin());
    await("the three events")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                core
                    .listNamespacedEvent(namespace.name())
                    .fieldSelector(describeSelector)
                    .execute()
                    .getItems()
                    .stream()
                    .map(CoreV1Event::getMessage)
                    .toList()
                    .containsAll(expected));

    List<CoreV1Event> events =
        core.listNamespacedEvent(namespace.name())
            .fieldSelector(describeSelector)
            .execute()
            .getItems();
    assertEquals(3, events.size(), events.toString());
    for (CoreV1Event event : events) {
      assertEquals("LeaderElection", event.getReason());
      assertEquals("Normal", event.getType());
      assertEquals(event.getMessage().substring(0, 5), event.getReportingInstance());
      assertEquals("fabric8-events-it", event.getReportingComponent());
      assertEquals("coordination.k8s.io/v1", event.getInvolvedObject().getApiVersion());
      assertEquals(1, event.getCount());
    }
  }
}
