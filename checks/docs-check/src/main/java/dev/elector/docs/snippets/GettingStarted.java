package dev.elector.docs.snippets;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import io.kubernetes.client.util.Config;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The getting-started snippets: the smallest leader-elected process, and term-scoped work. */
final class GettingStarted {
  private static final Logger log = LoggerFactory.getLogger(GettingStarted.class);

  private GettingStarted() {}

  // tag::main[]
  public static void main(String[] args) throws Exception {
    KubeLock lock = LeaseLock.newBuilder(Config.defaultClient())   // a pod's account, else $KUBECONFIG
        .name("elector-leader")              // namespace: POD_NAMESPACE (set it outside a pod)
        .build();                            // identity: POD_NAME (or the host name) + a suffix
    LeaderElector elector = LeaderElector.start(ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(LeaderCallbacks.of(
            term -> log.info("leading, fencing token {}", term.fencingToken()),
            (term, reason) -> log.info("stopped leading: {}", reason)))
        .build());                           // checks everything, lists every problem at once

    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      elector.close();                       // stop callback first, then release the Lease
      closed.countDown();
    }));
    closed.await();                          // the elector's threads are daemons: keep main alive
  }
  // end::main[]

  static LeaderCallbacks termScopedWork() {
    // tag::term-work[]
    ExecutorService worker = Executors.newSingleThreadExecutor();
    LeaderCallbacks callbacks = LeaderCallbacks.of(
        term -> worker.execute(() -> {       // never block the callback thread: hand work off
          while (term.isActive()) {          // false the instant the term ends, even after a pause
            reconcileOnce(term.fencingToken());
            term.whenEnded().toCompletableFuture()   // wait a second, or less if the term ends
                .completeOnTimeout(null, 1, TimeUnit.SECONDS).join();
          }
        }),
        (term, reason) -> log.info("stopped leading: {}", reason));
    // end::term-work[]
    return callbacks;
  }

  static void reconcileOnce(long fencingToken) {
    log.debug("one step of work under fencing token {}", fencingToken);
  }
}
