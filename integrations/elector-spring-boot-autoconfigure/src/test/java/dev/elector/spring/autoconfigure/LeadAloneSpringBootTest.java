package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.elector.LeaderElector;
import dev.elector.spring.CurrentTerm;
import dev.elector.spring.LeaderOnly;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

/**
 * The test set-up the Spring guide recommends, as an application's own test runs it: a whole
 * {@code @SpringBootTest} context with every auto-configuration on the class path, no cluster and
 * no namespace, in which this process leads alone and its {@code @LeaderOnly} work runs with a
 * term.
 */
@SpringBootTest(
    classes = LeadAloneSpringBootTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {
      "spring.application.name=reports",
      "elector.enabled=false",
      "elector.lead-when-disabled=true"
    })
class LeadAloneSpringBootTest {
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Reports.class)
  static class App {}

  /** An application bean with leader-only work. */
  @Component
  static class Reports {
    private final AtomicLong lastToken = new AtomicLong(-1);

    @LeaderOnly
    public void publish() {
      lastToken.set(CurrentTerm.get().orElseThrow().fencingToken());
    }

    long lastToken() {
      return lastToken.get();
    }
  }

  @Autowired LeaderElector elector;
  @Autowired Reports reports;

  @Test
  void theApplicationLeadsAloneAndItsLeaderOnlyWorkRunsWithItsTerm() {
    await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);

    reports.publish();

    assertThat(reports.lastToken())
        .isEqualTo(elector.currentTerm().orElseThrow().fencingToken())
        .isNotNegative();
    assertThat(elector.describe()).contains("in-memory lock");
  }
}
