package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * The elector closes before the web server's graceful shutdown begins (Boot 4's class; Boot 3.5's
 * is checked in elector-spring-boot-on-3). A higher phase starts later and stops earlier.
 */
class ElectorLifecyclePhaseTest {
  /** A web server that is never started: only the lifecycle's phase is read. */
  private static final WebServer SERVER =
      new WebServer() {
        @Override
        public void start() {}

        @Override
        public void stop() {}

        @Override
        public int getPort() {
          return -1;
        }
      };

  @Test
  void theElectorStopsBeforeTheWebServerDrainsAndAfterTheScheduler() {
    assertThat(ElectorLifecycle.PHASE)
        .isGreaterThan(new WebServerGracefulShutdownLifecycle(SERVER).getPhase())
        // the task scheduler's phase: scheduled @LeaderOnly work stops before the elector closes
        .isLessThan(SmartLifecycle.DEFAULT_PHASE);
  }
}
