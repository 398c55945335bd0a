package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.ObjectWatch;
import io.kubernetes.client.openapi.ApiClient;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A process that opens many per-lock watches is told once, at INFO, that sharing exists. The
 * watches point at a closed port: they fail and retry, which is all this needs.
 */
class ManyWatchesHintTest {

  @Test
  void theHintAboutSharedWatchComesOnceWhenManyLocksWatchOnThreadsOfTheirOwn() throws Exception {
    ApiClient nowhere = new ApiClient().setBasePath("http://127.0.0.1:1");
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<Closeable> watches = new ArrayList<>();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (int i = 0; i < ObjectWatch.MANY + 10; i++) {
        KubeLock lock =
            LeaseLock.newBuilder(nowhere)
                .namespace("ns")
                .name("lock-" + i)
                .identity("me")
                .requestTimeout(Duration.ofSeconds(1))
                .watchMode(WatchMode.PER_LOCK)
                .build();
        watches.add(lock.watch(read -> {}).orElseThrow());
      }
    } finally {
      for (Closeable watch : watches) {
        watch.close();
      }
      System.setErr(err);
    }
    List<String> hints =
        Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
            .filter(l -> l.contains("watchMode AUTO share one watch"))
            .toList();
    assertEquals(1, hints.size(), "one hint: " + hints);
    assertTrue(
        hints.get(0).contains("INFO")
            && hints.get(0).contains(ObjectWatch.MANY + " locks")
            && hints.get(0).contains("leases.coordination.k8s.io"),
        hints.get(0));
  }
}
