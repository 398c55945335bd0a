package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** The tests of this module run on Spring Boot 4.1 and the Spring it manages. */
class BootFourOneTest {
  @Test
  void thisIsBootFourOne() {
    assertThat(SpringBootVersion.getVersion())
        .isEqualTo(System.getProperty("spring-boot.expected.version"));
    assertThat(SpringVersion.getVersion()).startsWith("7.");
  }

  @Test
  void springIntegrationIsTheOneBootFourOneManages() {
    assertThat(LockRegistryLeaderInitiator.class.getPackage().getImplementationVersion())
        .startsWith("7.1");
  }
}
