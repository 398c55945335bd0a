package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.ObjectLock;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code recordEvents(true)} on the client-java Lease lock: the takeover Events of {@link
 * AbstractLeaseEventsIT}, and, without {@code create} on events, one WARN that names the rule while
 * the election goes on.
 */
class LeaseEventsIT extends AbstractLeaseEventsIT {

  @Override
  protected KubeLock eventsLock(
      KubeCluster cluster,
      KubeIdentity who,
      String namespace,
      String name,
      String identity,
      String component) {
    return LeaseLock.newBuilder(who.client())
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(Duration.ofSeconds(1))
        .recordEvents(true)
        .eventComponent(component)
        .build();
  }

  @Test
  void withoutCreateOnEventsOneWarnNamesTheRuleAndTheElectionGoesOn(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String name = shippedLockName();
    KubeIdentity c = cluster.newIdentity(namespace, "no-events");
    cluster.grant(c, namespace, KubeCluster.roleRules(RBAC)); // the shipped Role without events
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (int round = 1; round <= 2; round++) { // two terms, on two locks of the same identity
        KubeLock lock = eventsLock(cluster, c, namespace.name(), name, "pod-c", "events-it");
        LeaderElector elector = start(lock);
        await("pod-c leads, round " + round)
            .atMost(Duration.ofSeconds(15))
            .until(elector::isLeader);
        elector.close();
        await("both events of round " + round + " were refused")
            .atMost(Duration.ofSeconds(10))
            .until(() -> ((ObjectLock) lock).eventRecorder().orElseThrow().counts()[1] == 2);
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
    // The namespace is the test class's: only pod-c's events are this test's.
    assertEquals(
        List.of(),
        eventsOn(cluster, namespace.name(), "involvedObject.name=" + name).stream()
            .filter(e -> "pod-c".equals(e.getReportingInstance()))
            .toList());
    System.out.println("RESULT forbidden events: " + warning);
  }
}
