package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.elector.LeaderElector;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator of Spring Boot 4 ({@code spring-boot-health}). */
class ElectorHealthTest {
  private final ApplicationContextRunner runner =
      ElectorAutoConfigurationTest.RUNNER
          .withConfiguration(AutoConfigurations.of(ElectorHealthAutoConfiguration.class))
          .withClassLoader(ElectorAutoConfigurationTest.NO_FABRIC8)
          .withPropertyValues("elector.identity=me");

  @Test
  void upWhileHealthyWithWhoLeads() {
    runner.run(
        context -> {
          Health health = context.getBean("electorHealthIndicator", HealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails())
              .containsEntry("identity", "me")
              .containsEntry("leading", false)
              .containsEntry("leader", "")
              .containsEntry("lock", context.getBean(LeaderElector.class).describe())
              .containsKeys("following", "detail");
        });
  }

  @Test
  void theBootThreeIndicatorStaysOutOnBootFour() {
    runner
        .withConfiguration(AutoConfigurations.of(ElectorBootThreeHealthAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean("electorHealthIndicator"))
                  .isInstanceOf(HealthIndicator.class);
            });
  }

  @Test
  void theApplicationsOwnIndicatorWins() {
    HealthIndicator own = () -> Health.unknown().build();
    runner
        .withBean("electorHealthIndicator", HealthIndicator.class, () -> own)
        .run(context -> assertThat(context.getBean(HealthIndicator.class)).isSameAs(own));
  }

  @Test
  void offByProperty() {
    runner
        .withPropertyValues("management.health.elector.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorHealthIndicator"));
  }

  @Test
  void absentWithoutSpringBootHealth() {
    runner
        .withClassLoader(
            new FilteredClassLoader("dev.elector.fabric8", "org.springframework.boot.health"))
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context).doesNotHaveBean("electorHealthIndicator");
            });
  }

  @Test
  void absentWithoutAnElector() {
    runner
        .withPropertyValues("elector.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorHealthIndicator"));
  }
}
