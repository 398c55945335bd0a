package dev.elector.testkit.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the cluster is chosen, and what a user without one is told. */
class ClusterChoiceTest {

  private static ClusterChoice with(Map<String, String> env) {
    return new ClusterChoice(env::get);
  }

  @Test
  void theBinaryDefaultsToTheBuildCacheAndCanBeOverridden() {
    assertEquals(
        Path.of("/home/u/.cache/elector/bin/elector-apiserver"),
        with(Map.of("HOME", "/home/u")).binary());
    assertEquals(
        Path.of("/opt/apiserver"),
        with(Map.of("HOME", "/home/u", "ELECTOR_APISERVER_BIN", "/opt/apiserver")).binary());
  }

  @Test
  void onlyAnExplicitTrueSkips() {
    assertTrue(with(Map.of("ELECTOR_SKIP_CLUSTER_TESTS", "true")).skipRequested());
    assertFalse(with(Map.of("ELECTOR_SKIP_CLUSTER_TESTS", "1")).skipRequested());
    assertFalse(with(Map.of()).skipRequested());
  }

  @Test
  void aBadExplicitChoiceFailsNamingIt() {
    IllegalStateException kubeconfig =
        assertThrows(
            IllegalStateException.class,
            () -> with(Map.of("ELECTOR_TEST_KUBECONFIG", "/no/such/kubeconfig")).obtain());
    IllegalStateException binary =
        assertThrows(
            IllegalStateException.class,
            () -> with(Map.of("ELECTOR_APISERVER_BIN", "/no/such/binary")).obtain());

    assertTrue(kubeconfig.getMessage().contains("/no/such/kubeconfig"), kubeconfig.getMessage());
    assertTrue(binary.getMessage().contains("testenv/build.sh"), binary.getMessage());
  }

  @Test
  void withoutAnyClusterTheMessageListsEveryWayToGetOne() {
    String message = ClusterChoice.noClusterMessage(Path.of("/bin/x"));

    for (String part :
        new String[] {
          "bash testenv/build.sh",
          "/bin/x",
          "ELECTOR_APISERVER_BIN",
          "ELECTOR_TEST_KUBECONFIG",
          "Docker",
          "ELECTOR_SKIP_CLUSTER_TESTS=true"
        }) {
      assertTrue(message.contains(part), "missing " + part + " in " + message);
    }
  }
}
