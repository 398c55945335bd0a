package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.quarkus.test.ProdBuildResults;
import io.quarkus.test.ProdModeTestResults;
import io.quarkus.test.QuarkusProdModeTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ConfigMap lock with a name of its own, Events and a shared watch: the Role follows the lock
 * settings seen at build time, with deploy/configmap's rbac.yaml, rbac-events.yaml and
 * rbac-shared-watch.yaml rules; a service account the application names is the one bound.
 */
class KubernetesManifestConfigMapTest {
  private static final String APP = "elector-configmap-manifests";

  @RegisterExtension
  static final QuarkusProdModeTest app =
      GeneratedManifests.application(APP)
          .overrideConfigKey("quarkus.elector.lock-kind", "config-map")
          .overrideConfigKey("quarkus.elector.name", "shared-lock")
          .overrideConfigKey("quarkus.elector.record-events", "true")
          .overrideConfigKey("quarkus.elector.watch-mode", "shared")
          .overrideConfigKey("quarkus.kubernetes.service-account", "ops-account");

  @ProdBuildResults ProdModeTestResults results;

  @Test
  void roleFollowsTheLockSettings() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    Role role = manifests.get(Role.class, APP + "-leader-election");
    GeneratedManifests.assertRules(
        """
        [] [configmaps] [shared-lock] [get, list, watch, patch]
        [] [configmaps] [] [create]
        [] [events] [] [create]
        [] [configmaps] [] [list, watch]""",
        role.getRules());
  }

  @Test
  void boundToTheServiceAccountTheApplicationNames() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    RoleBinding binding = manifests.get(RoleBinding.class, APP + "-leader-election");
    assertEquals("ops-account", binding.getSubjects().get(0).getName());
    assertEquals("ops-account", manifests.serviceAccountName(APP));
  }
}
