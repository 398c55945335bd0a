package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertFalse;

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
      GeneratedManifests.application(APP)
          .overrideConfigKey("quarkus.elector.kubernetes.enabled", "false");

  @ProdBuildResults ProdModeTestResults results;

  @Test
  void nothingAdded() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    manifests.assertNoLeaderElectionRbac(APP);
    List<String> env = manifests.env(APP);
    assertFalse(env.stream().anyMatch(e -> e.startsWith("POD_")), () -> "env " + env);
  }
}
