package dev.elector.examples.hello;

import dev.elector.kube.KubeLock;
import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.k8s.LeaseLock;
import io.kubernetes.client.util.Config;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader-elected process: every replica is a candidate for the Lease "elector-leader" in its own
 * namespace, and the one that holds it does the work, one step a second, only while its term is
 * active. SIGTERM closes the elector: the work stops, then the Lease is released so that another
 * replica takes over at once. Run two or more; exactly one of them leads. The kubelet's probes are
 * served on HEALTH_PORT (default 8080): /healthz for liveness, /readyz for readiness.
 */
public final class HelloLeader {
  private static final Logger log = LoggerFactory.getLogger(HelloLeader.class);

  /** The lock name that deploy/lease/rbac.yaml grants access to. */
  static final String LOCK_NAME = "elector-leader";

  private HelloLeader() {}

  public static void main(String[] args) throws Exception {
    int healthPort = Integer.parseInt(System.getenv().getOrDefault("HEALTH_PORT", "8080"));
    KubeLock lock = LeaseLock.newBuilder(Config.defaultClient())   // a pod's account, else $KUBECONFIG
        .name(LOCK_NAME)                   // namespace: POD_NAMESPACE (Downward API); outside a
        .build();                          // pod set it too. Identity: POD_NAME plus a suffix
    ExecutorService worker = Executors.newSingleThreadExecutor();
    LeaderElector elector = LeaderElector.create(ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(new LeaderCallbacks() {
          @Override
          public void onStartedLeading(Term term) {
            log.info("{} started leading (fencing token {})", term.identity(),
                term.fencingToken());
            worker.execute(() -> work(term));
          }

          @Override
          public void onStoppedLeading(Term term, TermEnd reason) {
            log.info("{} stopped leading: {}", term.identity(), reason);
          }

          @Override
          public void onNewLeader(String identity) {
            log.info("the leader is now {}", identity);
          }
        })
        .build());
    Probes probes = Probes.start(healthPort, elector); // before candidacy: a taken port ends here
    log.info("{} serves /healthz and /readyz on port {}", elector.identity(), probes.port());

    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      elector.close(); // ends the term (onStoppedLeading), then releases the Lease
      worker.shutdown();
      probes.close(); // until here, /healthz answered 503 "closing"
      log.info("{} closed", elector.identity());
      closed.countDown();
    }, "hello-leader-shutdown"));
    elector.start();
    log.info("{} is a candidate for {}", elector.identity(), elector.describe());
    closed.await(); // the elector's threads are daemons: keep the process alive until SIGTERM
  }

  /** The leader's work: a step a second while the term is active, and not one step after it. */
  static void work(Term term) {
    long step = 0;
    while (term.isActive()) {
      log.info("{} works: step {}", term.identity(), ++step);
      try {
        // Wait a second, or less if the term ends first.
        term.whenEnded().toCompletableFuture().get(1, TimeUnit.SECONDS);
      } catch (TimeoutException stillLeading) {
        // the term goes on: next step
      } catch (ExecutionException e) {
        log.warn("unexpected end of the term", e);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    log.info("{} stopped working after {} steps", term.identity(), step);
  }
}
