package dev.elector.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderElector;
import dev.elector.quarkus.internal.ElectorLivenessCheck;
import dev.elector.quarkus.internal.ElectorMeters;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With Micrometer disabled and {@code quarkus.elector.health.enabled=false}, the elector still
 * leads (here on a ConfigMap), but binds no meters and adds no health check.
 */
class WithoutHealthAndMetricsTest {
  private static final String LOCK = "without-extras";

  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(TestCluster.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.micrometer.enabled", "false")
          .overrideConfigKey("quarkus.elector.health.enabled", "false")
          .overrideConfigKey("quarkus.elector.namespace", TestCluster.namespace())
          // config-map, the other spelling of configmap (Spring's elector.lock-kind takes both)
          .overrideConfigKey("quarkus.elector.lock-kind", "config-map")
          .overrideConfigKey("quarkus.elector.name", LOCK)
          .overrideConfigKey("quarkus.elector.identity", "replica-b");

  @Inject LeaderElector elector;
  @Inject KubernetesClient client;

  @Test
  void leadsOnAConfigMapWithoutMetersOrHealthCheck() {
    await().atMost(Duration.ofSeconds(20)).until(elector::isLeader);
    assertEquals("ConfigMap " + TestCluster.namespace() + "/" + LOCK, elector.describe());
    ConfigMap lock = client.configMaps().inNamespace(TestCluster.namespace()).withName(LOCK).get();
    assertTrue(
        lock.getMetadata()
            .getAnnotations()
            .getOrDefault("control-plane.alpha.kubernetes.io/leader", "")
            .contains("\"holderIdentity\":\"replica-b\""),
        () -> "the ConfigMap's record: " + lock.getMetadata().getAnnotations());
    assertFalse(Arc.container().instance(ElectorMeters.class).isAvailable(), "meters bound");
    assertTrue(Arc.container().select(MeterBinder.class).isUnsatisfied(), "a MeterBinder bean");
    assertFalse(
        Arc.container().instance(ElectorLivenessCheck.class).isAvailable(), "a health check");
    given().get("/q/health").then().statusCode(200).body("checks.name", not(hasItem("elector")));
  }
}
