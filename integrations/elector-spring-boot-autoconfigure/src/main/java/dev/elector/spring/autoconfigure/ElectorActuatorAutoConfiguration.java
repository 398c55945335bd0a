package dev.elector.spring.autoconfigure;

import dev.elector.LeaderElector;
import dev.elector.micrometer.ElectorMetrics;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What works on Boot 3.5 and 4 alike: {@link ElectorMetrics} as a {@code MeterBinder} bean (Boot
 * binds it to every {@code MeterRegistry}, so {@code /actuator/prometheus} shows client-go's {@code
 * leader_election_master_status}), and the {@code elector} entry of {@code /actuator/info}.
 */
@AutoConfiguration(after = {ElectorAutoConfiguration.class, ElectorDisabledAutoConfiguration.class})
@ConditionalOnBean(LeaderElector.class)
final class ElectorActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "dev.elector.micrometer.ElectorMetrics",
        "io.micrometer.core.instrument.MeterRegistry"
      })
  static final class Metrics {
    @Bean
    @ConditionalOnMissingBean
    ElectorMetrics electorMetrics(LeaderElector elector) {
      return ElectorMetrics.of(elector);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.info.InfoContributor")
  static final class Info {
    @Bean
    @ConditionalOnMissingBean(name = "electorInfoContributor")
    InfoContributor electorInfoContributor(LeaderElector elector) {
      return builder -> builder.withDetail("elector", ElectorDetails.of(elector));
    }
  }
}
