package dev.elector.spring;

import dev.elector.LeaderElector;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers the {@link LeaderOnlyPostProcessor}. The auto-configuration imports it by name (its
 * {@code LeaderOnlyImport}), so that neither class has to be public; it does so whether the elector
 * is enabled or not, so that {@code @LeaderOnly} never lets a call through unguarded.
 */
@Configuration(proxyBeanMethods = false)
final class LeaderOnlyConfiguration {
  /**
   * Proxies the beans with {@code @LeaderOnly} methods. Static, so that this post-processor does
   * not create its configuration early; it asks for the elector at each call, so that the elector
   * bean is not created with the post-processors. Without an elector bean ({@code
   * elector.enabled=false}) the calls are skipped.
   */
  @Bean
  static LeaderOnlyPostProcessor leaderOnlyPostProcessor(ObjectProvider<LeaderElector> elector) {
    return new LeaderOnlyPostProcessor(elector::getIfAvailable);
  }
}
