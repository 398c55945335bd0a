package dev.elector.quarkus.deployment;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import dev.elector.quarkus.LeadershipRevoked;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Quarkus' shutdown order with {@code quarkus.shutdown.delay}: the leader keeps leading through the
 * delay, its revocation comes after the delay and before ShutdownEvent, while the HTTP server still
 * answers. What each step saw travels in system properties, across the test's class loaders.
 */
class ShutdownDelayTest {
  private static final String PREFIX = "elector.quarkus.test.delay.";

  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(TestCluster.class, Steps.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.shutdown.delay-enabled", "true")
          .overrideConfigKey("quarkus.shutdown.delay", "1s")
          .overrideConfigKey("quarkus.elector.namespace", TestCluster.namespace())
          .overrideConfigKey("quarkus.elector.name", "shutdown-delay")
          .setAfterAllCustomizer(ShutdownDelayTest::afterShutdown);

  @Inject LeaderElector elector;

  @Test
  void leads() {
    await().atMost(Duration.ofSeconds(20)).until(elector::isLeader);
  }

  /** Records when each shutdown step came, and whether the elector still led at the first. */
  @Singleton
  public static class Steps {
    @Inject LeaderElector elector;

    void delay(@Observes ShutdownDelayInitiatedEvent event) {
      record("delay", System.nanoTime() + " " + elector.isLeader());
    }

    void revoked(@Observes LeadershipRevoked event) {
      String answer;
      try {
        String url = ConfigProvider.getConfig().getValue("test.url", String.class);
        answer =
            String.valueOf(
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(URI.create(url + "/q/health/ready"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                        HttpResponse.BodyHandlers.discarding())
                    .statusCode());
      } catch (Exception e) {
        answer = e.getClass().getSimpleName();
      }
      record("revoked", System.nanoTime() + " " + event.reason() + " " + answer);
    }

    void shutdown(@Observes ShutdownEvent event) {
      record("shutdown", String.valueOf(System.nanoTime()));
    }

    private static void record(String step, String what) {
      System.setProperty(PREFIX + step, what);
    }
  }

  private static void afterShutdown() {
    String[] delay = System.getProperty(PREFIX + "delay", "0 none").split(" ", -1);
    String[] revoked = System.getProperty(PREFIX + "revoked", "0 none none").split(" ", -1);
    long shutdown = Long.parseLong(System.getProperty(PREFIX + "shutdown", "0"));
    assertEquals("true", delay[1], "leading when the shutdown delay began");
    assertEquals("CLOSED", revoked[1], "the revocation's reason");
    long afterDelay = Long.parseLong(revoked[0]) - Long.parseLong(delay[0]);
    assertTrue(
        afterDelay >= Duration.ofMillis(900).toNanos(),
        "revoked "
            + Duration.ofNanos(afterDelay)
            + " after the delay began, want after the 1 s delay");
    assertTrue(Long.parseLong(revoked[0]) < shutdown, "revoked after ShutdownEvent");
    // The HTTP server still answers; readiness has been DOWN (503) since the delay began.
    assertEquals("503", revoked[2], "the HTTP server's answer during the revocation");
  }
}
