package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A duration without a unit is seconds in Quarkus (its DurationConverter), not milliseconds as in
 * Spring: {@code quarkus.elector.lease-duration=5} is five seconds, which the message shows, so the
 * extension has no unit check to add. The startup fails only to print the values read: a renew
 * deadline of 6 s is not shorter than a lease of 5 s.
 */
class BareNumberDurationTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.name", "bare-numbers")
          .overrideConfigKey("quarkus.elector.namespace", "apps")
          .overrideConfigKey("quarkus.elector.lease-duration", "5")
          .overrideConfigKey("quarkus.elector.renew-deadline", "6")
          .assertException(BareNumberDurationTest::check);

  private static void check(Throwable thrown) {
    Throwable cause = ConfigErrors.cause(thrown);
    assertInstanceOf(ConfigurationException.class, cause, () -> "not a configuration error");
    assertEquals(
        List.of(
            "quarkus.elector.renew-deadline PT6S must be shorter than"
                + " quarkus.elector.lease-duration PT5S; raise quarkus.elector.lease-duration or"
                + " lower quarkus.elector.renew-deadline"),
        ConfigErrors.problems(cause.getMessage(), 1));
  }

  @Test
  void theStartupFails() {
    fail("the application started");
  }
}
