package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.test.QuarkusUnitTest;
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
          .assertException(MissingNameTest::check);

  private static void check(Throwable thrown) {
    Throwable cause = ConfigErrors.cause(thrown);
    assertInstanceOf(ConfigurationException.class, cause, () -> "not a configuration error");
    assertEquals(
        "Invalid quarkus.elector configuration (1 problem):\n"
            + "  - cannot build the Lease lock: quarkus.elector.name is missing; set"
            + " quarkus.elector.name (default quarkus.application.name) to the Lease all candidates"
            + " share; no namespace for the Lease: set quarkus.elector.namespace, or set the"
            + " environment variable POD_NAMESPACE from the Downward API (fieldRef:"
            + " metadata.namespace), or run in a pod with a service account mounted"
            + " (/var/run/secrets/kubernetes.io/serviceaccount/namespace)",
        cause.getMessage());
  }

  @Test
  void theStartupFails() {
    fail("the application started");
  }
}
