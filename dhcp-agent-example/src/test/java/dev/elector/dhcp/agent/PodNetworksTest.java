package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's NIC from the pod's Multus network status, as the Downward API writes it. */
class PodNetworksTest {
  /** A file as the kubelet writes it: Go-quoted values, one annotation a line. */
  private static final String ANNOTATIONS =
      """
      k8s.v1.cni.cncf.io/network-status="[{\\"name\\":\\"k8s-pod-network\\",\\"interface\\":\\"eth0\\",\\"default\\":true},{\\"name\\":\\"default/net-48\\",\\"interface\\":\\"net1\\",\\"mac\\":\\"02:00:00:00:00:01\\"},{\\"name\\":\\"default/storage\\",\\"interface\\":\\"net2\\"}]"
      k8s.v1.cni.cncf.io/networks="[{\\"namespace\\":\\"default\\",\\"name\\":\\"net-48\\"}]"
      kubernetes.io/config.seen="2026-12-03T14:00:00.000000000Z"
      """;

  @TempDir Path dir;

  @Test
  void findsTheInterfaceMultusAttachedForTheNetwork() throws Exception {
    Path file = write(ANNOTATIONS);

    assertEquals("net1", interfaceOf(file, "default/net-48"));
    assertEquals("net2", interfaceOf(file, "default/storage"));
  }

  @Test
  void readsTheDownwardApiFileWithGoEscapes() {
    Map<String, String> values =
        PodNetworks.parseDownwardApi(
            "a=\"say \\\"hi\\\"\\n\\ttab \\\\ back\"\nb=\"\\x41\\u00e9\\U0001F600\"\nempty=\"\"\n");

    assertEquals("say \"hi\"\n\ttab \\ back", values.get("a"));
    assertEquals("A\u00e9\uD83D\uDE00", values.get("b"));
    assertEquals("", values.get("empty"));
  }

  @Test
  void aLineThatIsNotKeyEqualsQuotedValueIsNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> PodNetworks.parseDownwardApi("a=\"1\"\nb=2\n"));
    assertEquals("line 2 is not key=\"value\"", e.getMessage());
    IllegalArgumentException escape =
        assertThrows(
            IllegalArgumentException.class, () -> PodNetworks.parseDownwardApi("a=\"\\xZZ\"\n"));
    assertEquals("line 1 has a bad \\x escape", escape.getMessage());
  }

  @Test
  void aNetworkThatIsNotAttachedNamesWhatIs() throws Exception {
    Path file = write(ANNOTATIONS);

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> interfaceOf(file, "tenant-a/net-49"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "network tenant-a/net-49 is not attached to this pod"
                    + " (attached: [k8s-pod-network on eth0, default/net-48 on net1, default/storage on"
                    + " net2]); select it in the pod's k8s.v1.cni.cncf.io/networks annotation"),
        e.getMessage());
  }

  @Test
  void withoutMultusTheMissingAnnotationIsNamed() throws Exception {
    Path file = write("kubernetes.io/config.seen=\"x\"\n");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> interfaceOf(file, "default/net-48"));
    assertTrue(
        e.getMessage()
            .contains(
                "the pod has no k8s.v1.cni.cncf.io/network-status"
                    + " annotation in "
                    + file
                    + "; is Multus installed"),
        e.getMessage());
  }

  @Test
  void withoutTheVolumeTheMissingFileIsNamedWithTheFix() {
    Path file = dir.resolve("absent");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> interfaceOf(file, "default/net-48"));
    assertTrue(
        e.getMessage()
            .startsWith(
                file
                    + " does not exist; mount the pod's annotations"
                    + " there with a downwardAPI volume (fieldPath: metadata.annotations), or pass --nic"),
        e.getMessage());
  }

  @Test
  void aStatusThatIsNotAJsonArrayIsNamed() throws Exception {
    Path file = write("k8s.v1.cni.cncf.io/network-status=\"{}\"\n");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> interfaceOf(file, "default/net-48"));
    assertTrue(
        e.getMessage().contains("k8s.v1.cni.cncf.io/network-status is not a JSON array"),
        e.getMessage());
  }

  @Test
  void waitsForTheKubeletToWriteTheStatusThenServes() throws Exception {
    Path file = write("kubernetes.io/config.seen=\"x\"\n");
    long[] now = {0};
    int[] sleeps = {0};

    String iface =
        PodNetworks.interfaceOf(
            file,
            "default/net-48",
            Duration.ofSeconds(60),
            () -> now[0],
            d -> {
              now[0] += d.toNanos();
              if (++sleeps[0] == 6) {
                writeUnchecked(file, ANNOTATIONS);
              }
            });

    assertEquals("net1", iface);
    assertEquals(6, sleeps[0], "read again every 0.5 s until the status appeared");
  }

  @Test
  void givesUpAfterTheWaitWithWhatItSawLast() throws Exception {
    Path file = write("kubernetes.io/config.seen=\"x\"\n");
    long[] now = {0};
    List<Duration> slept = new java.util.ArrayList<>();

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                PodNetworks.interfaceOf(
                    file,
                    "default/net-48",
                    Duration.ofSeconds(10),
                    () -> now[0],
                    d -> {
                      slept.add(d);
                      now[0] += d.toNanos();
                    }));

    assertEquals(20, slept.size(), "10 s of reads every 0.5 s");
    assertTrue(e.getMessage().endsWith("(after waiting 10 s)"), e.getMessage());
    assertTrue(e.getMessage().contains("no k8s.v1.cni.cncf.io/network-status"), e.getMessage());
  }

  private static String interfaceOf(Path file, String network) throws InterruptedException {
    return PodNetworks.interfaceOf(
        file,
        network,
        Duration.ZERO,
        () -> 0,
        d -> {
          throw new AssertionError("no wait was asked for");
        });
  }

  private Path write(String content) throws IOException {
    Path file = dir.resolve("annotations");
    Files.writeString(file, content);
    return file;
  }

  private static void writeUnchecked(Path file, String content) {
    try {
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
