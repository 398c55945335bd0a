package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.elector.LeaderElector;
import io.kubernetes.client.openapi.ApiClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.health.CompositeHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code elector} health indicator on Spring Boot 3.5's own health API and endpoint. */
class BootThreeHealthTest {
  private final ApplicationContextRunner runner =
      ElectorAutoConfigurationTest.RUNNER
          .withConfiguration(
              AutoConfigurations.of(
                  ElectorBootThreeHealthAutoConfiguration.class,
                  ElectorHealthAutoConfiguration.class,
                  EndpointAutoConfiguration.class,
                  HealthContributorAutoConfiguration.class,
                  HealthEndpointAutoConfiguration.class))
          .withBean(ApiClient.class, ApiClient::new)
          .withPropertyValues(
              "elector.backend=client-java",
              "elector.identity=me",
              "management.endpoint.health.show-details=always");

  @Test
  void theHealthEndpointReportsTheElectorUpWithWhoLeads() {
    runner.run(
        context -> {
          HealthComponent endpoint = context.getBean(HealthEndpoint.class).health();
          assertThat(endpoint).isInstanceOf(CompositeHealth.class);
          HealthComponent elector = ((CompositeHealth) endpoint).getComponents().get("elector");
          assertThat(elector).isInstanceOf(Health.class);
          Health health = (Health) elector;
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails())
              .containsEntry("identity", "me")
              .containsEntry("leading", false)
              .containsEntry("lock", context.getBean(LeaderElector.class).describe())
              .containsKeys("following", "detail");
        });
  }

  @Test
  void downOnceTheElectorIsClosed() {
    runner.run(
        context -> {
          HealthIndicator indicator =
              context.getBean("electorHealthIndicator", HealthIndicator.class);
          assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
          context.getBean(LeaderElector.class).close();
          Health down = indicator.health();
          assertThat(down.getStatus()).isEqualTo(Status.DOWN);
          assertThat(down.getDetails().get("detail").toString()).contains("closed");
          assertThat(indicator.getHealth(false).getDetails()).isEmpty();
        });
  }

  @Test
  void theApplicationsOwnIndicatorWins() {
    HealthIndicator own = () -> Health.unknown().build();
    runner
        .withBean("electorHealthIndicator", HealthIndicator.class, () -> own)
        .run(context -> assertThat(context.getBean("electorHealthIndicator")).isSameAs(own));
  }

  @Test
  void offByItsPropertyOrBootsDefaultsProperty() {
    runner
        .withPropertyValues("management.health.elector.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorHealthIndicator"));
    runner
        .withPropertyValues("management.health.defaults.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorHealthIndicator"));
    runner
        .withPropertyValues(
            "management.health.defaults.enabled=false", "management.health.elector.enabled=true")
        .run(context -> assertThat(context).hasBean("electorHealthIndicator"));
  }

  @Test
  void absentWithoutAnElector() {
    runner
        .withPropertyValues("elector.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorHealthIndicator"));
  }
}
