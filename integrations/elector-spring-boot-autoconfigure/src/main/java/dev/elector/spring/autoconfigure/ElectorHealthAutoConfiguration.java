package dev.elector.spring.autoconfigure;

import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code elector} health indicator (Spring Boot 4's {@code spring-boot-health}): UP while the
 * elector is healthy, leading or following, DOWN when it is not (its renewals or reads have failed
 * past the lease); details: lock, identity, leading, leader, fencing token, following mode and the
 * elector's own words. Off with {@code management.health.elector.enabled=false}.
 */
@AutoConfiguration(after = {ElectorAutoConfiguration.class, ElectorDisabledAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(LeaderElector.class)
final class ElectorHealthAutoConfiguration {

  // Nested, so that Boot 3.5, which has no such annotation, never reads it.
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnEnabledHealthIndicator("elector")
  static final class Indicator {
    @Bean
    @ConditionalOnMissingBean(name = "electorHealthIndicator")
    HealthIndicator electorHealthIndicator(LeaderElector elector) {
      return () -> {
        ElectorStats stats = elector.stats();
        return (stats.healthy() ? Health.up() : Health.down())
            .withDetails(ElectorDetails.of(elector, stats))
            .build();
      };
    }
  }
}
