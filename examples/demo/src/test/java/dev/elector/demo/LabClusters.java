package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.fail;

import dev.elector.dhcp.lab.NetLab;
import dev.elector.ippool.NetworkCrds;
import dev.elector.testkit.kube.KubeCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;

/**
 * What the end-to-end DHCP tests need first: the network lab (root and the lab tools, installed by
 * scripts/install-dhcp-client.sh), and on the cluster the CRDs and the controller's shipped RBAC.
 */
final class LabClusters {
  private LabClusters() {}

  /**
   * Fails (rather than skips) where the lab cannot run, unless ELECTOR_SKIP_NETNS_TESTS=true, which
   * aborts the test as skipped on request; then installs the CRDs and deploy/controller/rbac.yaml.
   */
  static void prepare(KubeCluster cluster, Duration wait) throws Exception {
    if (NetLab.skipRequested()) {
      Assumptions.abort(NetLab.SKIP_VARIABLE + "=true: network namespace test skipped on request");
    }
    NetLab.prepare("../../dhcp-agent-example/scripts/install-dhcp-client.sh")
        .ifPresent(why -> fail(why));
    NetworkCrds.install(cluster.admin(), wait);
    Manifests.apply(cluster.admin(), Path.of("..", "..", "deploy", "controller", "rbac.yaml"));
  }
}
