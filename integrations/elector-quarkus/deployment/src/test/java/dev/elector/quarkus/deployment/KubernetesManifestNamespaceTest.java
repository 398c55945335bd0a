package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.ProdBuildResults;
import io.quarkus.test.ProdModeTestResults;
import io.quarkus.test.QuarkusProdModeTest;
import java.util.List;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code quarkus.elector.namespace} set, the lock is not in the Deployment's namespace: no
 * Role or RoleBinding is added, a build warning says so, and POD_NAME and POD_NAMESPACE are still
 * set.
 */
class KubernetesManifestNamespaceTest {
  private static final String APP = "elector-elsewhere";

  @RegisterExtension
  static final QuarkusProdModeTest app =
      GeneratedManifests.application(APP)
          .setLogRecordPredicate(
              r ->
                  r.getLoggerName()
                      .equals(
                          "dev.elector.quarkus.deployment.internal.KubernetesManifestProcessor"))
          .overrideConfigKey("quarkus.elector.namespace", "locks");

  @ProdBuildResults ProdModeTestResults results;

  @Test
  void noRoleAndAWarning() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    manifests.assertNoLeaderElectionRbac(APP);
    List<String> warnings =
        results.getRetainedBuildLogRecords().stream().map(LogRecord::getMessage).toList();
    assertTrue(
        warnings.stream().anyMatch(m -> m.contains("quarkus.elector.namespace is locks")),
        () -> "build log " + warnings);
    List<String> env = manifests.env(APP);
    assertTrue(env.contains("POD_NAME<-metadata.name"), () -> "env " + env);
  }
}
