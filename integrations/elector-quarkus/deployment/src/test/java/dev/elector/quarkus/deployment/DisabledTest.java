package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.elector.LeaderElector;
import dev.elector.quarkus.internal.ElectorLifecycle;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code quarkus.elector.enabled=false} (for a dev or test profile) registers nothing: no elector,
 * so no settings to check and no API server to reach.
 */
class DisabledTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.enabled", "false")
          .overrideConfigKey("quarkus.elector.lease-duration", "-1s");

  @Test
  void noElector() {
    assertFalse(Arc.container().instance(LeaderElector.class).isAvailable());
    assertFalse(Arc.container().instance(ElectorLifecycle.class).isAvailable());
  }
}
