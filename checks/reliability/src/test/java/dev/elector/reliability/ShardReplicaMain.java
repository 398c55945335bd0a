package dev.elector.reliability;

import dev.elector.CallOutcome;
import dev.elector.ElectorListener;
import dev.elector.LeaderCallbacks;
import dev.elector.LockCall;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.examples.ProcessEvent;
import dev.elector.k8s.LeaseLock;
import dev.elector.shard.ShardGroup;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.FileReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A replica of a shard group in a process of its own, at the default timings, so that a scenario
 * can kill it without warning. Arguments: NAME NAMESPACE KUBECONFIG GROUP SHARDS. Prints one {@link
 * ProcessEvent} line per event, with {@code System.nanoTime()} as its monotonic time: kinds started
 * and stopped (shard, token; stopped with the term's activeUntil and end reason), and calls (the
 * lock calls made so far, every second).
 */
public final class ShardReplicaMain {
  private ShardReplicaMain() {}

  public static void main(String[] args) throws Exception {
    String name = args[0];
    String namespace = args[1];
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    KubeConfig config = KubeConfig.loadKubeConfig(new FileReader(args[2], StandardCharsets.UTF_8));
    ApiClient client = ClientBuilder.kubeconfig(config).build();
    AtomicLong calls = new AtomicLong();
    ElectorListener report =
        new ElectorListener() {
          @Override
          public void onLockCall(LockCall call, CallOutcome outcome, Duration latency) {
            calls.incrementAndGet();
          }

          @Override
          public void onTermStarted(Term term) {
            shard(term)
                .ifPresent(s -> event(out, "started", "shard", s, "token", term.fencingToken()));
          }

          @Override
          public void onTermEnded(Term term, TermEnd reason) {
            shard(term)
                .ifPresent(
                    s ->
                        event(
                            out,
                            "stopped",
                            "shard",
                            s,
                            "token",
                            term.fencingToken(),
                            "activeUntil",
                            term.activeUntilNanos(),
                            "reason",
                            reason));
          }
        };
    ShardGroup group =
        ShardGroup.newBuilder()
            .group(args[3])
            .shards(Integer.parseInt(args[4]))
            .locks(
                lockName ->
                    LeaseLock.newBuilder(client)
                        .namespace(namespace)
                        .name(lockName)
                        .identity(name)
                        .build())
            .callbacks(shard -> LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
            .config(b -> b.listener(report))
            .build();
    group.start();
    CountDownLatch never = new CountDownLatch(1);
    while (!never.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
      event(out, "calls", "total", calls.get());
    }
  }

  private static void event(PrintStream out, String kind, Object... keyValues) {
    out.println(
        ProcessEvent.of(kind, System.currentTimeMillis(), System.nanoTime(), keyValues).toJson());
  }

  private static java.util.Optional<Integer> shard(Term term) {
    int at = term.lock().lastIndexOf("-shard-");
    return at < 0
        ? java.util.Optional.empty()
        : java.util.Optional.of(Integer.parseInt(term.lock().substring(at + "-shard-".length())));
  }
}
