package dev.elector.testkit.kube;

import org.jspecify.annotations.Nullable;

/**
 * k3s in Testcontainers. Loaded only when Testcontainers is on the class path; the classes that
 * need it are touched only inside these methods.
 */
final class K3sCluster {
  static final String DEFAULT_IMAGE = "rancher/k3s:v1.31.4-k3s1";

  private K3sCluster() {}

  static boolean dockerAvailable() {
    try {
      Class.forName(
          "org.testcontainers.k3s.K3sContainer", false, K3sCluster.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  static KubeCluster start(@Nullable String image) throws Exception {
    String name = image != null ? image : DEFAULT_IMAGE;
    org.testcontainers.k3s.K3sContainer k3s =
        new org.testcontainers.k3s.K3sContainer(
            org.testcontainers.utility.DockerImageName.parse(name)
                .asCompatibleSubstituteFor("rancher/k3s"));
    k3s.start();
    try {
      return KubeCluster.fromKubeconfigYaml(
          "k3s " + name + " in Testcontainers", k3s.getKubeConfigYaml(), k3s::stop);
    } catch (Exception e) {
      k3s.stop();
      throw e;
    }
  }
}
