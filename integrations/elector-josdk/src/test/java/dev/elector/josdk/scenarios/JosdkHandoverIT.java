package dev.elector.josdk.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Three replicas of the Greeting operator as separate processes on one Lease, each as the
 * ServiceAccount of the shipped Role ({@code deploy/rbac.yaml}). Only the leader reconciles; the
 * leader is killed with SIGKILL and the next one takes over once the Lease expires and reconciles
 * the Greetings created meanwhile; that one gets SIGTERM and hands over at once (its operator
 * stopped before the release). Every write is checked against who led at the moment it was decided.
 */
@KubeTest
class JosdkHandoverIT {
  private static final List<String> TIMINGS =
      List.of("--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms");

  @Test
  void onlyTheLeaderReconcilesAndTheNextLeaderTakesOverAfterAKillAndATerm(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    String ns = namespace.name();
    Path dir = Replica.workDir("handover");
    KubeIdentity pod = cluster.newIdentity(namespace, "greeting-operator");
    cluster.grant(pod, namespace, KubeCluster.roleRules(Cluster.RBAC));
    String kubeconfig = cluster.kubeconfigYaml(pod.token());
    List<String> flags = new java.util.ArrayList<>(List.of("--namespace", ns));
    flags.addAll(TIMINGS);
    try (Cluster api = new Cluster(cluster);
        Replica a = Replica.start("replica-a", cluster.server(), kubeconfig, dir, flags)) {
      Await.until(
          "replica-a leads and its operator runs",
          Duration.ofSeconds(60),
          () -> a.has("OPERATOR_STARTED"));
      try (Replica b = Replica.start("replica-b", cluster.server(), kubeconfig, dir, flags);
          Replica c = Replica.start("replica-c", cluster.server(), kubeconfig, dir, flags)) {
        List<Replica> all = List.of(a, b, c);
        Await.until(
            "replicas b and c run",
            Duration.ofSeconds(60),
            () -> b.has("STARTED") && c.has("STARTED"));
        for (int i = 1; i <= 3; i++) {
          api.create(ns, "before-kill-" + i, 0);
        }
        for (int i = 1; i <= 3; i++) {
          String name = "before-kill-" + i;
          Await.until(
              name + " is reconciled",
              Duration.ofSeconds(30),
              () -> api.writer(ns, name).isPresent());
          assertEquals(Optional.of("replica-a"), api.writer(ns, name));
        }

        long killed = a.kill();
        for (int i = 1; i <= 3; i++) {
          api.create(ns, "after-kill-" + i, 0);
        }
        Await.until(
            "the next leader reconciles the Greetings created after the kill",
            Duration.ofSeconds(30),
            () ->
                List.of(b, c).stream()
                    .anyMatch(
                        r ->
                            r.reconciled("after-kill-1")
                                && r.reconciled("after-kill-2")
                                && r.reconciled("after-kill-3")));
        Replica second = b.has("LEADING") ? b : c;
        Replica third = second == b ? c : b;
        assertFalse(third.has("LEADING"), "one of b and c took over, the other follows");
        for (int i = 1; i <= 3; i++) {
          assertEquals(Optional.of(second.name), api.writer(ns, "after-kill-" + i));
        }
        long takeover = second.events("LEADING").get(0).nanos() - killed;
        System.out.printf(
            "FIGURE josdk-handover kill-to-new-leader %d ms (lease 3 s)%n", takeover / 1_000_000);

        second.terminate(); // close the elector: stop the operator, then release the Lease
        long termed = System.nanoTime();
        api.create(ns, "after-term", 0);
        Await.until(
            "after-term is reconciled",
            Duration.ofSeconds(30),
            () -> third.reconciled("after-term"));
        Await.until(
            "the terminated replica exits",
            Duration.ofSeconds(10),
            () -> second.has("EXIT") && !second.process.isAlive());
        // Its shutdown hooks print EXIT and close the elector at the same time, so STOPPED can come
        // after EXIT, and the reader thread takes the last lines from the pipe in its own time.
        Await.until(
            "the terminated replica's STOPPED line is read",
            Duration.ofSeconds(10),
            () -> second.has("STOPPED"));
        assertEquals(Optional.of(third.name), api.writer(ns, "after-term"));
        long handover = third.events("LEADING").get(0).nanos() - termed;
        System.out.printf("FIGURE josdk-handover term-to-new-leader %d ms%n", handover / 1_000_000);
        Replica.Event stopped = second.events("STOPPED").get(0);
        assertTrue(
            stopped.nanos() < third.events("LEADING").get(0).nanos(),
            "the terminated leader's operator stopped before the next leader started");
        assertTrue(
            handover < Duration.ofSeconds(3).toNanos(),
            "a SIGTERM hands over before the Lease would expire: " + handover / 1_000_000 + " ms");

        assertEquals(
            List.of(),
            Leadership.writesByNonLeaders(all),
            "every write was decided by the replica that led at that moment");
        assertEquals(List.of(), Leadership.overlaps(all, System.nanoTime()));
      }
    }
  }
}
