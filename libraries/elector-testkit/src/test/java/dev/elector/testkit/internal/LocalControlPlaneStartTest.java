package dev.elector.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A first start that loses a port it picked to another process is tried again; any other failure is
 * reported at once. The binary is a script that behaves as the control plane does at start.
 */
class LocalControlPlaneStartTest {

  /**
   * A stand-in binary: the first {@code failures} starts exit with {@code error} on stderr, the
   * next reports ready and runs until its stdin closes.
   */
  private static Path binary(Path dir, int failures, String error) throws IOException {
    Path script = dir.resolve("fake-apiserver");
    Files.writeString(
        script,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "count_file='" + dir.resolve("starts") + "'",
            "n=$(( $(cat \"$count_file\" 2>/dev/null || echo 0) + 1 ))",
            "echo \"$n\" > \"$count_file\"",
            "if [ \"$n\" -le " + failures + " ]; then echo '" + error + "' >&2; exit 1; fi",
            "echo 'ELECTOR-APISERVER-READY {\"server\":\"https://127.0.0.1:4242\","
                + "\"kubeconfig\":\"/dev/null\",\"users\":\"/dev/null\",\"version\":\"v0\"}'",
            "cat > /dev/null",
            ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  private static int starts(Path dir) throws IOException {
    return Integer.parseInt(Files.readString(dir.resolve("starts")).strip());
  }

  @Test
  void aPortLostToAnotherProcessIsPickedAgain(@TempDir Path dir) throws IOException {
    Path binary =
        binary(dir, 2, "failed to listen on 127.0.0.1:40927: bind: address already in use");
    try (LocalControlPlane plane =
        LocalControlPlane.start(binary, dir.resolve("work"), Duration.ofSeconds(20), List.of())) {
      assertEquals("https://127.0.0.1:4242", plane.server());
      assertEquals(3, starts(dir), "two lost ports, then a start");
    }
  }

  @Test
  void anyOtherFailureIsReportedAtOnce(@TempDir Path dir) throws IOException {
    Path binary = binary(dir, 1, "etcd: data directory is corrupt");
    IOException failed =
        assertThrows(
            IOException.class,
            () ->
                LocalControlPlane.start(
                    binary, dir.resolve("work"), Duration.ofSeconds(20), List.of()));
    assertTrue(failed.getMessage().contains("data directory is corrupt"), failed.getMessage());
    assertEquals(1, starts(dir));
  }

  @Test
  void aPortLostOnEveryTryIsReportedAfterThree(@TempDir Path dir) throws IOException {
    Path binary = binary(dir, 5, "bind: address already in use");
    assertThrows(
        IOException.class,
        () ->
            LocalControlPlane.start(
                binary, dir.resolve("work"), Duration.ofSeconds(20), List.of()));
    assertEquals(3, starts(dir));
  }
}
