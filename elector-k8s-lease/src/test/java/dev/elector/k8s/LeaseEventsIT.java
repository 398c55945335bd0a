package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code recordEvents(true)} on a real API server: after a takeover the Lease carries client-go's
 * {@code became leader} / {@code stopped leading} Events, found the way {@code kubectl describe}
 * finds them; without {@code create} on events, one WARN names the rule and the election goes on.
 */
@KubeTest
class LeaseEventsIT {
  private static final Path RBAC = Path.of("..", "deploy", "lease", "rbac.yaml");
  private static final Path RBAC_EVENTS = Path.of("..", "deploy", "lease", "rbac-events.yaml");
  private final List<LeaderElector> electors = new ArrayList<>();

  @AfterEach
  void closeAll() {
    electors.forEach(LeaderElector::close);
  }

  /** The lock name the shipped Role allows. */
  private static String shippedLockName() throws Exception {
    return RoleRules.fromYaml(RBAC).stream()
        .filter(r -> r.getResourceNames() != null)
        .flatMap(r -> r.getResourceNames().stream())
        .findFirst()
        .orElseThrow();
  }

  private static LeaseLock lock(KubeIdentity who, String namespace, String name, String identity) {
    return LeaseLock.newBuilder()
        .apiClient(who.client())
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(Duration.ofSeconds(1))
        .recordEvents(true)
        .eventComponent("events-it")
        .build();
  }

  private LeaderElector start(LeaseLock lock) {
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

  private static List<CoreV1Event> eventsOn(KubeCluster cluster, String namespace, String selector)
      throws Exception {
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
    List<V1PolicyRule> rules = new ArrayList<>(RoleRules.fromYaml(RBAC));
    rules.addAll(RoleRules.fromYaml(RBAC_EVENTS));
    KubeIdentity a = cluster.newIdentity(namespace, "events-a");
    KubeIdentity b = cluster.newIdentity(namespace, "events-b");
    cluster.grant(a, namespace, rules);
    cluster.grant(b, namespace, rules);

    LeaderElector first = start(lock(a, namespace.name(), name, "pod-a"));
    await("pod-a leads").atMost(Duration.ofSeconds(15)).until(first::isLeader);
    LeaderElector second = start(lock(b, namespace.name(), name, "pod-b"));
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
    // kubectl describe lease finds events by the object's kind, name, namespace and uid
    String describeSelector =
        "involvedObject.kind=Lease,involvedObject.name="
            + name
            + ",involvedObject.namespace="
            + namespace.name()
            + ",involvedObject.uid="
            + uid;
    List<String> expected =
        List.of("pod-a became leader", "pod-a stopped leading (closed)", "pod-b became leader");
    await("the three events")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                eventsOn(cluster, namespace.name(), describeSelector).stream()
                    .map(CoreV1Event::getMessage)
                    .toList()
                    .containsAll(expected));

    List<CoreV1Event> events = eventsOn(cluster, namespace.name(), describeSelector);
    assertEquals(3, events.size(), events.toString());
    for (CoreV1Event event : events) {
      String instance = event.getMessage().startsWith("pod-a") ? "pod-a" : "pod-b";
      assertEquals("LeaderElection", event.getReason());
      assertEquals("Normal", event.getType());
      assertEquals(instance, event.getReportingInstance());
      assertEquals("events-it", event.getReportingComponent());
      assertEquals("events-it", event.getSource().getComponent());
      assertEquals("coordination.k8s.io/v1", event.getInvolvedObject().getApiVersion());
      assertEquals(1, event.getCount());
    }
    System.out.println(
        "RESULT events after a takeover: "
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

  @Test
  void withoutCreateOnEventsOneWarnNamesTheRuleAndTheElectionGoesOn(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String name = shippedLockName();
    KubeIdentity c = cluster.newIdentity(namespace, "no-events");
    cluster.grant(c, namespace, RoleRules.fromYaml(RBAC)); // the shipped Role without events
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (int round = 1; round <= 2; round++) { // two terms, on two locks of the same identity
        LeaseLock lock = lock(c, namespace.name(), name, "pod-c");
        LeaderElector elector = start(lock);
        await("pod-c leads, round " + round)
            .atMost(Duration.ofSeconds(15))
            .until(elector::isLeader);
        elector.close();
        await("both events of round " + round + " were refused")
            .atMost(Duration.ofSeconds(10))
            .until(() -> lock.eventRecorder().counts()[1] == 2);
      }
    } finally {
      System.setErr(err);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    System.err.print(log);
    List<String> warnings =
        Arrays.stream(log.split("\n"))
            .filter(l -> l.contains("WARN") && l.contains("Events"))
            .toList();
    assertEquals(1, warnings.size(), "one WARN for four refused events:\n" + log);
    String warning = warnings.get(0);
    assertTrue(
        warning.contains("pod-c may not create Events in namespace " + namespace.name()), warning);
    assertTrue(
        warning.contains("{apiGroups: [\"\"], resources: [\"events\"], verbs: [\"create\"]}"),
        warning);
    assertTrue(warning.contains("the election is not affected"), warning);
    assertEquals(List.of(), eventsOn(cluster, namespace.name(), "involvedObject.name=" + name));
    System.out.println("RESULT forbidden events: " + warning);
  }
}
