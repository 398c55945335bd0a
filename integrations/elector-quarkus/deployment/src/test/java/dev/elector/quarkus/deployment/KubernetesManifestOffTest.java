package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.quarkus.test.ProdBuildResults;
import io.quarkus.test.ProdModeTestResults;
import io.quarkus.test.QuarkusProdModeTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code quarkus.elector.kubernetes.enabled=false}: the manifests get no Role, no RoleBinding and
 * no environment variables from the extension.
 */
class KubernetesManifestOffTest {
  private static final String APP = "elector-no-manifests";

  @RegisterExtension
  static final QuarkusProdModeTest app =
      new QuarkusProdModeTest()
          .withEmptyApplication()
          .setApplicationName(APP)
          .setApplicationVersion("1.0")
          .setForcedDependencies(GeneratedManifests.QUARKUS_KUBERNETES)
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.elector.kubernetes.enabled", "false");

  @ProdBuildResults ProdModeTestResults results;

  @Test
  void nothingAdded() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    assertTrue(manifests.find(Role.class, APP + "-leader-election").isEmpty(), manifests::toString);
    assertTrue(
        manifests.find(RoleBinding.class, APP + "-leader-election").isEmpty(), manifests::toString);
    List<String> env = manifests.env(APP);
    assertFalse(env.stream().anyMatch(e -> e.startsWith("POD_")), () -> "env " + env);
  }
}
