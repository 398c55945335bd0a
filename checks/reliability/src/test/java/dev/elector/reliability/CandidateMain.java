package dev.elector.reliability;

import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.examples.ProcessEvent;
import dev.elector.k8s.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.FileReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A candidate in a process of its own, for scenarios that freeze a whole process. It leads a Lease
 * with the scenario timings and, while its term is active, writes to a {@link FencedResource} with
 * its fencing token every few milliseconds, as a leader doing its work would.
 *
 * <p>Arguments: NAME NAMESPACE LOCK KUBECONFIG FENCED_CONFIGMAP. Prints one line per event, in the
 * examples' event format ({@link ProcessEvent}, with {@code System.nanoTime()} as its {@code
 * mono}), with kinds leading, stopped (with the term's activeUntil), act (the term was active when
 * checked at checkedAt, a write begins), accepted, refused, and inactive (the first check that
 * found the term over, at checkedAt; no act follows it).
 */
public final class CandidateMain {
  private CandidateMain() {}

  public static void main(String[] args) throws Exception {
    String name = args[0];
    String namespace = args[1];
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    KubeConfig config = KubeConfig.loadKubeConfig(new FileReader(args[3], StandardCharsets.UTF_8));
    ApiClient client = ClientBuilder.kubeconfig(config).build();
    FencedResource fenced = new FencedResource(client, namespace, args[4]);
    AtomicReference<Term> current = new AtomicReference<>();
    LeaderElector elector =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(
                    LeaseLock.newBuilder(client)
                        .namespace(namespace)
                        .name(args[2])
                        .identity(name)
                        .requestTimeout(Cohort.RENEW_DEADLINE.dividedBy(2))
                        .build())
                .leaseDuration(Cohort.LEASE)
                .renewDeadline(Cohort.RENEW_DEADLINE)
                .retryPeriod(Cohort.RETRY)
                .maxBackoff(Cohort.MAX_BACKOFF)
                .callbacks(
                    LeaderCallbacks.of(
                        current::set, (term, reason) -> current.compareAndSet(term, null)))
                .listener(
                    new ElectorListener() {
                      @Override
                      public void onTermStarted(Term term) {
                        event(out, "leading", "token", term.fencingToken());
                      }

                      @Override
                      public void onTermEnded(Term term, TermEnd reason) {
                        event(
                            out,
                            "stopped",
                            "token",
                            term.fencingToken(),
                            "reason",
                            reason,
                            "activeUntil",
                            term.activeUntilNanos());
                      }
                    })
                .build());
    Runtime.getRuntime().addShutdownHook(new Thread(elector::close));
    boolean acting = false;
    while (true) {
      Term term = current.get();
      long checkedAt = System.nanoTime(); // before the check: a pause after it cannot fake a breach
      if (acting && (term == null || !term.isActive())) {
        acting = false;
        event(out, "inactive", "checkedAt", checkedAt);
      }
      if (term != null && term.isActive()) {
        acting = true;
        event(out, "act", "token", term.fencingToken(), "checkedAt", checkedAt);
        FencedResource.Outcome outcome = fenced.write(term.fencingToken(), name);
        event(
            out,
            outcome == FencedResource.Outcome.ACCEPTED ? "accepted" : "refused",
            "token",
            term.fencingToken());
      }
      Thread.sleep(5); // the worker's pace: a write every few milliseconds
    }
  }

  private static void event(PrintStream out, String kind, Object... keyValues) {
    out.println(
        ProcessEvent.of(kind, System.currentTimeMillis(), System.nanoTime(), keyValues).toJson());
  }
}
