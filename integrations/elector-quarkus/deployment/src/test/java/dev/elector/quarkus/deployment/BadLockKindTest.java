package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An unknown lock kind fails the startup, naming the property, the value and the choices. */
class BadLockKindTest {
  @RegisterExtension
  static final QuarkusUnitTest app =
      new QuarkusUnitTest()
          .withEmptyApplication()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.namespace", "apps")
          .overrideConfigKey("quarkus.elector.lock-kind", "zookeeper")
          .assertException(BadLockKindTest::check);

  private static void check(Throwable thrown) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    String text = all.toString();
    assertTrue(text.contains("quarkus.elector.lock-kind"), text);
    assertTrue(text.contains("zookeeper"), text);
    assertTrue(text.contains("lease") && text.contains("configmap"), text);
  }

  @Test
  void theStartupFails() {
    fail("the application started");
  }
}
