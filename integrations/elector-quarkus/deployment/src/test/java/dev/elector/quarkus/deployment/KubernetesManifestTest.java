package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.quarkus.test.ProdBuildResults;
import io.quarkus.test.ProdModeTestResults;
import io.quarkus.test.QuarkusProdModeTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With quarkus-kubernetes and no lock settings, the generated kubernetes.yml gives the Deployment
 * POD_NAME and POD_NAMESPACE from the Downward API, and a ServiceAccount of its own bound to a Role
 * with exactly deploy/lease/rbac.yaml's rules on the Lease named after the application.
 */
class KubernetesManifestTest {
  private static final String APP = "elector-manifests";

  @RegisterExtension
  static final QuarkusProdModeTest app =
      GeneratedManifests.application(APP)
          // No binding to the ClusterRole view from quarkus-kubernetes-client: the ServiceAccount
          // and the Deployment's serviceAccountName then come from this extension alone.
          .overrideConfigKey("quarkus.kubernetes-client.generate-rbac", "false");

  @ProdBuildResults ProdModeTestResults results;

  @Test
  void roleOnTheLeaseNamedAfterTheApplication() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    Role role = manifests.get(Role.class, APP + "-leader-election");
    GeneratedManifests.assertRules(
        "[coordination.k8s.io] [leases] ["
            + APP
            + "] [get, list, watch, patch]\n"
            + "[coordination.k8s.io] [leases] [] [create]",
        role.getRules());
  }

  @Test
  void roleBoundToTheDeploymentsServiceAccount() {
    GeneratedManifests manifests = GeneratedManifests.read(results.getBuildDir());
    RoleBinding binding = manifests.get(RoleBinding.class, APP + "-leader-election");
    assertEquals("Role", binding.getRoleRef().getKind());
    assertEquals(APP + "-leader-election", binding.getRoleRef().getName());
    assertEquals("rbac.authorization.k8s.io", binding.getRoleRef().getApiGroup());
    List<Subject> subjects = binding.getSubjects();
    assertEquals(1, subjects.size(), () -> "subjects " + subjects);
    assertEquals("ServiceAccount", subjects.get(0).getKind());
    assertEquals(APP, subjects.get(0).getName());
    manifests.get(ServiceAccount.class, APP);
    assertEquals(APP, manifests.serviceAccountName(APP));
    assertEquals(
        List.of(APP + "-leader-election"),
        manifests.all(RoleBinding.class).stream().map(b -> b.getMetadata().getName()).toList());
  }

  @Test
  void podNameAndNamespaceFromTheDownwardApi() {
    List<String> env = GeneratedManifests.read(results.getBuildDir()).env(APP);
    assertTrue(env.contains("POD_NAME<-metadata.name"), () -> "env " + env);
    assertTrue(env.contains("POD_NAMESPACE<-metadata.namespace"), () -> "env " + env);
  }
}
