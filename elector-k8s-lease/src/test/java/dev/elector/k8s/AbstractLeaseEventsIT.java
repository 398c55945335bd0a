package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.LeaderLock;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
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
 * {@code recordEvents(true)} on a backend's Lease lock, on a real API server under the shipped
 * Roles: after a takeover the Lease carries client-go's {@code became leader} / {@code stopped
 * leading} Events, found the way {@code kubectl describe} finds them. A backend's subclass says how
 * it builds the lock.
 */
@KubeTest
public abstract class AbstractLeaseEventsIT {
  protected static final Path RBAC =
      Path.of(System.getProperty("elector.repository.root", ".."), "deploy/lease/rbac.yaml");
  private static final Path RBAC_EVENTS =
      Path.of(System.getProperty("elector.repository.root", ".."), "deploy/lease/rbac-events.yaml");
  private final List<LeaderElector> electors = new ArrayList<>();

  /**
   * A Lease lock acting as {@code who}, with a 1 s request timeout, recording Events as {@code
   * component}.
   */
  protected abstract LeaderLock eventsLock(
      KubeCluster cluster,
      KubeIdentity who,
      String namespace,
      String name,
      String identity,
      String component);

  @AfterEach
  void closeElectors() {
    electors.forEach(LeaderElector::close);
    afterElectorsClosed();
  }

  /** Releases what the backend's locks used, once every elector is closed. */
  protected void afterElectorsClosed() {}

  /** The lock name the shipped Role allows. */
  protected static String shippedLockName() throws Exception {
    return KubeCluster.roleRules(RBAC).stream()
        .filter(r -> r.getResourceNames() != null)
        .flatMap(r -> r.getResourceNames().stream())
        .findFirst()
        .orElseThrow();
  }

  /** Starts an elector on {@code lock} at a 3 s lease; it is closed after the test. */
  protected LeaderElector start(LeaderLock lock) {
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

  /** The namespace's Events that match {@code selector}. */
  protected static List<CoreV1Event> eventsOn(
      KubeCluster cluster, String namespace, String selector) throws Exception {
    return new CoreV1Api(cluster.admin())
        .listNamespacedEvent(namespace)
        .fieldSelector(selector)
        .execute()
        .getItems();
  }

  @Test
  void afterATakeoverTheLeaseCarriesTheLeaderElectionEvents(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String name = shippedLockName();
    String component = getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
    List<V1PolicyRule> rules = new ArrayList<>(KubeCluster.roleRules(RBAC));
    rules.addAll(KubeCluster.roleRules(RBAC_EVENTS));
    KubeIdentity a = cluster.newIdentity(namespace, "events-a");
    KubeIdentity b = cluster.newIdentity(namespace, "events-b");
    cluster.grant(a, namespace, rules);
    cluster.grant(b, namespace, rules);

    LeaderElector first = start(eventsLock(cluster, a, namespace.name(), name, "pod-a", component));
    await("pod-a leads").atMost(Duration.ofSeconds(15)).until(first::isLeader);
    LeaderElector second =
        start(eventsLock(cluster, b, namespace.name(), name, "pod-b", component));
    await("pod-b follows")
        .atMost(Duration.ofSeconds(5))
        .until(() -> second.observedLeader().isPresent());
    first.close(); // steps down and releases: pod-b takes over
    await("pod-b takes over").atMost(Duration.ofSeconds(5)).until(second::isLeader);
    assertTrue(second.stepDown(Duration.ofMinutes(1)), "pod-b steps down and stays a candidate");

    String uid =
        new CoordinationV1Api(cluster.admin())
            .readNamespacedLease(name, namespace.name())
            .execute()
            .getMetadata()
            .getUid();
    // kubectl describe lease finds events by the object's kind, name, namespace and uid
    String describeSelector =
        "involvedObject.kind=Lease,involvedObject.name="
            + name
            + ",involvedObject.namespace="
            + namespace.name()
            + ",involvedObject.uid="
            + uid;
    List<String> expected =
        List.of(
            "pod-a became leader",
            "pod-a stopped leading (closed)",
            "pod-b became leader",
            "pod-b stopped leading (stepped down)");
    await("the four events")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                eventsOn(cluster, namespace.name(), describeSelector).stream()
                    .map(CoreV1Event::getMessage)
                    .toList()
                    .containsAll(expected));

    List<CoreV1Event> events = eventsOn(cluster, namespace.name(), describeSelector);
    assertEquals(4, events.size(), events.toString());
    for (CoreV1Event event : events) {
      String instance = event.getMessage().startsWith("pod-a") ? "pod-a" : "pod-b";
      assertEquals("LeaderElection", event.getReason());
      assertEquals("Normal", event.getType());
      assertEquals(instance, event.getReportingInstance());
      assertEquals(component, event.getReportingComponent());
      assertEquals(component, event.getSource().getComponent());
      assertEquals("coordination.k8s.io/v1", event.getInvolvedObject().getApiVersion());
      assertEquals(1, event.getCount());
    }
    System.out.println(
        "RESULT events after a takeover ("
            + getClass().getSimpleName()
            + "): "
            + events.stream()
                .map(
                    e ->
                        e.getType()
                            + " "
                            + e.getReason()
                            + " "
                            + e.getReportingInstance()
                            + ": "
                            + e.getMessage())
                .toList());
  }
}
