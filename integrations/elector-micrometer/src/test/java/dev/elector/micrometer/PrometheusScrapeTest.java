package dev.elector.micrometer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.testkit.VirtualTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus text carries client-go's {@code leader_election_master_status{name=...}}, so
 * dashboards made for Go controllers work, next to the {@code elector_*} meters.
 */
class PrometheusScrapeTest {

  @Test
  void theScrapeCarriesClientGosLeaderGaugeAndTheElectorMeters() {
    VirtualTime time = VirtualTime.withSeed(3);
    InMemoryLockStore store = InMemoryLockStore.create("orders");
    LeaderElector a =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(store.lockFor("pod-a"))
                .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
                .build());
    LeaderElector b =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(store.lockFor("pod-b"))
                .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
                .build());
    try {
      time.advanceUntil(a::isLeader, Duration.ofSeconds(5));
      time.advance(Duration.ofSeconds(3));
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      ElectorMetrics.of(a, b).bindTo(registry);
      String text = registry.scrape();
      List<String> lines = Arrays.asList(text.split("\n"));
      System.out.println(text);

      assertLine(lines, "# TYPE leader_election_master_status gauge");
      assertLine(
          lines,
          "leader_election_master_status{identity=\"pod-a\","
              + "lock=\"in-memory lock orders\",name=\"orders\"} 1");
      assertLine(
          lines,
          "leader_election_master_status{identity=\"pod-b\","
              + "lock=\"in-memory lock orders\",name=\"orders\"} 0");
      assertLine(
          lines,
          "elector_terms_started_total{identity=\"pod-a\","
              + "lock=\"in-memory lock orders\",name=\"orders\"} 1");
      assertLine(
          lines,
          "elector_lock_calls_total{call=\"renew\",identity=\"pod-a\","
              + "lock=\"in-memory lock orders\",name=\"orders\",outcome=\"ok\"} ");
      assertLine(
          lines,
          "elector_lock_latency_seconds_count{identity=\"pod-a\","
              + "lock=\"in-memory lock orders\",name=\"orders\",purpose=\"renew\"} ");
      assertLine(
          lines,
          "elector_terms_ended_total{identity=\"pod-a\","
              + "lock=\"in-memory lock orders\",name=\"orders\",reason=\"lock_lost\"} 0");
      assertLine(
          lines,
          "elector_following{identity=\"pod-b\",lock=\"in-memory lock orders\","
              + "mode=\"watching\",name=\"orders\"} 1");
      assertLine(
          lines,
          "elector_healthy{identity=\"pod-b\",lock=\"in-memory lock orders\","
              + "name=\"orders\"} 1");
    } finally {
      time.close(a, b);
    }
  }

  private static void assertLine(List<String> lines, String prefix) {
    assertTrue(
        lines.stream().anyMatch(l -> l.startsWith(prefix)),
        "no line starts with " + prefix + "\n" + String.join("\n", lines));
  }
}
