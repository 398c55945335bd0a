package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.elector.LeaderElector;
import dev.elector.micrometer.ElectorMetrics;
import io.kubernetes.client.openapi.ApiClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;

/** The tests of this module run on Boot 3.5, where Boot 4's health API does not exist. */
class BootThreeTest {
  @Test
  void thisIsBootThreeFive() {
    assertThat(SpringBootVersion.getVersion())
        .isEqualTo(System.getProperty("spring-boot.expected.version"));
  }

  @Test
  void theElectorStopsBeforeTheWebServerDrains() {
    assertThat(ElectorLifecycle.PHASE)
        .isGreaterThan(
            org.springframework.boot.web.context.WebServerGracefulShutdownLifecycle
                .SMART_LIFECYCLE_PHASE);
  }

  @Test
  void theHealthAutoConfigurationBacksOffAndTheRestWorks() {
    ElectorAutoConfigurationTest.RUNNER
        .withConfiguration(AutoConfigurations.of(ElectorHealthAutoConfiguration.class))
        .withBean(ApiClient.class, ApiClient::new)
        .withPropertyValues("elector.backend=client-java")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context).hasSingleBean(ElectorMetrics.class);
              assertThat(context).doesNotHaveBean("electorHealthIndicator");
            });
  }
}
