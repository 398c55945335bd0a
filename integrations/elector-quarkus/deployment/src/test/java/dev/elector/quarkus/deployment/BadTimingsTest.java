package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad timings and a bad namespace fail the startup with one message that lists every problem, each
 * line naming its quarkus.elector property first, then the value, the rule and the fix.
 */
class BadTimingsTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.name", "bad-timings")
          .overrideConfigKey("quarkus.elector.namespace", "Not_A_Namespace")
          .overrideConfigKey("quarkus.elector.renew-deadline", "20s")
          .overrideConfigKey("quarkus.elector.retry-period", "0s")
          .overrideConfigKey("quarkus.elector.jitter", "0.5")
          .assertException(BadTimingsTest::check);

  private static void check(Throwable thrown) {
    Throwable cause = ConfigErrors.cause(thrown);
    assertInstanceOf(ConfigurationException.class, cause, () -> "not a configuration error");
    List<String> lines = ConfigErrors.problems(cause.getMessage(), 4);
    assertEquals(
        List.of(
            "quarkus.elector.name",
            "quarkus.elector.retry-period",
            "quarkus.elector.jitter",
            "quarkus.elector.renew-deadline"),
        ConfigErrors.properties(lines));
    // The lock builder's own check, naming the properties it comes from.
    assertTrue(lines.get(0).contains("quarkus.elector.namespace"), lines.get(0));
    assertTrue(lines.get(0).contains("\"Not_A_Namespace\" is not a valid namespace name"));
    // The core's problems: value, rule and fix, every setting by its property.
    assertEquals(
        List.of(
            "quarkus.elector.retry-period PT0S must be positive; use a duration such as PT2S"
                + " (the default)",
            "quarkus.elector.jitter 0.5 must be between 1.0 and 10.0; the default is 1.2",
            "quarkus.elector.renew-deadline PT20S must be shorter than"
                + " quarkus.elector.lease-duration PT15S; raise quarkus.elector.lease-duration or"
                + " lower quarkus.elector.renew-deadline"),
        lines.subList(1, 4));
  }

  @Test
  void theStartupFails() {
    fail("the application started");
  }
}
