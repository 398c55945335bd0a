package dev.elector.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.micrometer.ElectorMetrics;
import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension on the real API server with SmallRye Health and Micrometer: the bean leads, the
 * events carry its term, the liveness check and the gauge show it, and at shutdown the leader's
 * revocation comes while the HTTP server still answers, and the Lease is released.
 */
class ElectorExtensionTest {
  private static final String LOCK = "extension-test";
  private static final String IDENTITY = "replica-a";

  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(Recorded.class, AtShutdown.class, TestCluster.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.namespace", TestCluster.namespace())
          .overrideConfigKey("quarkus.elector.name", LOCK)
          .overrideConfigKey("quarkus.elector.identity", IDENTITY)
          .overrideConfigKey("quarkus.elector.lease-duration", "4s")
          .overrideConfigKey("quarkus.elector.renew-deadline", "3s")
          .overrideConfigKey("quarkus.elector.retry-period", "500ms")
          .setAfterAllCustomizer(ElectorExtensionTest::afterShutdown);

  @Inject LeaderElector elector;
  @Inject Recorded recorded;
  @Inject KubernetesClient client;
  @Inject MeterRegistry registry;

  @Test
  void theBeanLeadsOnTheQuarkusClientAndTheEventCarriesItsTerm() {
    await().atMost(Duration.ofSeconds(20)).until(elector::isLeader);
    assertEquals(IDENTITY, elector.identity());
    assertEquals("Lease " + TestCluster.namespace() + "/" + LOCK, elector.describe());
    await().atMost(Duration.ofSeconds(5)).until(() -> !recorded.granted.isEmpty());
    Term term = recorded.granted.get(0).term();
    assertEquals(elector.currentTerm().orElseThrow().fencingToken(), term.fencingToken());
    assertEquals(IDENTITY, term.identity());
    assertTrue(term.isActive());
    assertTrue(recorded.revoked.isEmpty(), () -> "revoked while leading: " + recorded.revoked);
    // Observers run on the elector's callback threads, never the renewing scheduler's.
    assertFalse(recorded.threads.get(0).contains("scheduler"), recorded.threads.get(0));
    // The Lease on the API server names this replica, written through the Quarkus client.
    Lease lease = client.leases().inNamespace(TestCluster.namespace()).withName(LOCK).get();
    assertEquals(IDENTITY, lease.getSpec().getHolderIdentity());
  }

  @Test
  void theLivenessCheckShowsLeadershipAsData() {
    await().atMost(Duration.ofSeconds(20)).until(elector::isLeader);
    long token = elector.currentTerm().orElseThrow().fencingToken();
    given()
        .get("/q/health/live")
        .then()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem("elector"))
        .body("checks.find { it.name == 'elector' }.status", equalTo("UP"))
        .body("checks.find { it.name == 'elector' }.data.leading", equalTo(true))
        .body("checks.find { it.name == 'elector' }.data.identity", equalTo(IDENTITY))
        .body("checks.find { it.name == 'elector' }.data.leader", equalTo(IDENTITY))
        .body(
            "checks.find { it.name == 'elector' }.data.lock",
            equalTo("Lease " + TestCluster.namespace() + "/" + LOCK))
        .body("checks.find { it.name == 'elector' }.data.term", equalTo((int) token));
    // Readiness is not the elector's: a follower serves as well as the leader.
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("checks.name.flatten()", org.hamcrest.Matchers.not(hasItem("elector")));
  }

  @Test
  void theLeaderGaugeIsBoundAndScraped() {
    await().atMost(Duration.ofSeconds(20)).until(elector::isLeader);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                registry.find(ElectorMetrics.LEADER).tag(ElectorMetrics.TAG_NAME, LOCK).gauge()
                        != null
                    && registry
                            .find(ElectorMetrics.LEADER)
                            .tag(ElectorMetrics.TAG_NAME, LOCK)
                            .gauge()
                            .value()
                        == 1.0);
    given()
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(
            containsString(
                "leader_election_master_status{identity=\""
                    + IDENTITY
                    + "\",lock=\"Lease "
                    + TestCluster.namespace()
                    + "/"
                    + LOCK
                    + "\",name=\""
                    + LOCK
                    + "\"} 1.0"));
  }

  /**
   * Records, across the test's class loaders (system properties), what the revocation at shutdown
   * saw: its reason and the answer of the application's own HTTP server at that moment.
   */
  @Singleton
  public static class AtShutdown {
    void revoked(@Observes LeadershipRevoked event) {
      String answer;
      try {
        HttpResponse<String> response =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create(testUrl() + "/q/metrics"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        answer = String.valueOf(response.statusCode());
      } catch (Exception e) {
        answer = e.toString();
      }
      System.setProperty("elector.quarkus.test.revoked", event.reason() + " http " + answer);
    }

    private static String testUrl() {
      return org.eclipse.microprofile.config.ConfigProvider.getConfig()
          .getValue("test.url", String.class);
    }

    void granted(@Observes LeadershipGranted event) {
      System.setProperty(
          "elector.quarkus.test.granted", String.valueOf(event.term().fencingToken()));
    }
  }

  private static void afterShutdown() {
    String revoked = System.getProperty("elector.quarkus.test.revoked");
    assertEquals("CLOSED http 200", revoked, "the revocation at shutdown");
    try (KubernetesClient admin = TestCluster.admin()) {
      Lease lease = admin.leases().inNamespace(TestCluster.namespace()).withName(LOCK).get();
      String holder = lease.getSpec().getHolderIdentity();
      assertTrue(holder == null || holder.isEmpty(), "the Lease is still held by " + holder);
    } catch (AssertionError e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
