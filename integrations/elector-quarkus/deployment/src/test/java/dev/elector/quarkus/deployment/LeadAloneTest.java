package dev.elector.quarkus.deployment;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * In test mode (as in dev mode), outside a pod and without {@code quarkus.elector.namespace}, the
 * application leads alone on a lock in its own memory instead of failing to start: no cluster, no
 * build-time switch, one WARN that says so.
 */
class LeadAloneTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.application.name", "reports")
          .setLogRecordPredicate(r -> r.getLoggerName().endsWith("ElectorProducer"))
          .assertLogRecords(
              records ->
                  assertTrue(
                      records.stream()
                          .anyMatch(
                              r ->
                                  r.getMessage().contains("alone")
                                      && r.getMessage().contains("local runs and tests only")),
                      "the WARN that says this process leads alone"));

  @Test
  void theApplicationLeadsAloneOnALockInItsOwnMemory() {
    LeaderElector elector = Arc.container().instance(LeaderElector.class).get();
    await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
    assertEquals("in-memory lock reports", elector.describe());
  }
}
