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
 * Without quarkus.elector.name and without quarkus.application.name there is no lock name: the
 * startup fails and says which property to set. Without a namespace (no POD_NAMESPACE, no service
 * account file) it says so in the same message, never falling back to {@code default}.
 */
class MissingNameTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.application.name", "")
          // as a production start does: a test without a namespace would otherwise lead alone
          .overrideConfigKey("quarkus.elector.lead-alone", "false")
          .assertException(MissingNameTest::check);

  private static void check(Throwable thrown) {
    Throwable cause = ConfigErrors.cause(thrown);
    assertInstanceOf(ConfigurationException.class, cause, () -> "not a configuration error");
    List<String> lines = ConfigErrors.problems(cause.getMessage(), 2);
    assertEquals(
        List.of("quarkus.elector.name", "quarkus.elector.namespace"),
        ConfigErrors.properties(lines));
    assertEquals(
        "quarkus.elector.name is not set and quarkus.application.name is empty; set"
            + " quarkus.elector.name to the name of the lock all replicas share, such as my-app",
        lines.get(0));
    assertTrue(
        lines
            .get(1)
            .startsWith(
                "quarkus.elector.namespace is not set and this process does not run in a pod (no"
                    + " POD_NAMESPACE variable, no"),
        lines.get(1));
    assertTrue(lines.get(1).endsWith("POD_NAMESPACE from the Downward API"), lines.get(1));
  }

  @Test
  void theStartupFails() {
    fail("the application started");
  }
}
