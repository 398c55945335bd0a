package dev.elector.dhcp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.elector.dhcp.lab.NetLab;
import dev.elector.time.MonotonicClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end against a real DHCP client: busybox udhcpc in one network namespace, the Java server
 * ({@link StaticDhcpServerMain}) in another, joined by a veth pair on 192.0.2.0/24 (TEST-NET-1).
 * Needs root and iproute2; fails, rather than skips, when namespaces cannot be made, unless
 * ELECTOR_SKIP_NETNS_TESTS=true.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DhcpRealClientIT {
  private static final String TAG = Long.toString(ProcessHandle.current().pid() % 100_000);
  private static final String SERVER_NS = "elx-dhcp-s-" + TAG;
  private static final String CLIENT_NS = "elx-dhcp-c-" + TAG;
  private static final String SERVER_IF = "eds" + TAG;
  private static final String CLIENT_IF = "edc" + TAG;
  private static final String KNOWN_MAC = "02:00:00:00:00:01";
  private static final String UNKNOWN_MAC = "02:00:00:00:00:99";

  private static Process server;
  private static final List<String> serverOutput = new CopyOnWriteArrayList<>();

  @TempDir static Path work;

  @BeforeAll
  static void setUp() throws Exception {
    if (NetLab.skipRequested()) {
      Assumptions.abort(NetLab.SKIP_VARIABLE + "=true: network namespace test skipped on request");
    }
    installClient();
    cleanUp();
    Result made = run(10, "ip", "netns", "add", SERVER_NS);
    if (made.exit != 0) {
      fail(
          "cannot create network namespaces (this test needs root and iproute2): "
              + made.output
              + " - set "
              + NetLab.SKIP_VARIABLE
              + "=true to skip it explicitly");
    }
    must("ip", "netns", "add", CLIENT_NS);
    must("ip", "link", "add", CLIENT_IF, "type", "veth", "peer", "name", SERVER_IF);
    must("ip", "link", "set", SERVER_IF, "netns", SERVER_NS);
    must("ip", "link", "set", CLIENT_IF, "netns", CLIENT_NS);
    must("ip", "-n", SERVER_NS, "link", "set", "lo", "up");
    must("ip", "-n", SERVER_NS, "addr", "add", "192.0.2.1/24", "dev", SERVER_IF);
    must("ip", "-n", SERVER_NS, "link", "set", SERVER_IF, "up");
    must("ip", "-n", CLIENT_NS, "link", "set", "lo", "up");
    must("ip", "-n", CLIENT_NS, "link", "set", CLIENT_IF, "address", KNOWN_MAC);
    must("ip", "-n", CLIENT_NS, "link", "set", CLIENT_IF, "up");
    startServer();
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
    cleanUp();
  }

  private static void cleanUp() throws Exception {
    run(10, "ip", "netns", "del", SERVER_NS);
    run(10, "ip", "netns", "del", CLIENT_NS);
  }

  private static void installClient() throws Exception {
    String script =
        System.getenv()
            .getOrDefault("DHCP_CLIENT_INSTALL_SCRIPT", "scripts/install-dhcp-client.sh");
    Result installed = run(300, "bash", script);
    if (installed.exit != 0) {
      fail("could not install the DHCP client with " + script + ": " + installed.output);
    }
  }

  private static void startServer() throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                "ip",
                "netns",
                "exec",
                SERVER_NS,
                java,
                "-cp",
                classpath(),
                StaticDhcpServerMain.class.getName(),
                "--bind",
                "192.0.2.1",
                "--port",
                "67",
                "--cidr",
                "192.0.2.0/24",
                "--router",
                "192.0.2.254",
                "--dns",
                "192.0.2.53,192.0.2.54",
                "--domain",
                "example.test",
                "--search",
                "example.test,lab.example.test",
                "--ntp",
                "192.0.2.123",
                "--lease-time",
                "4",
                "--lease",
                KNOWN_MAC + "=192.0.2.10",
                "--lease",
                "02:00:00:00:00:02=192.0.2.11"));
    server = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  serverOutput.add(line);
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "dhcp-it-server-output");
    reader.setDaemon(true);
    reader.start();
    try {
      await("the static server's READY line")
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(50))
          .failFast("the static server exited", () -> !server.isAlive())
          .until(() -> serverOutput.stream().anyMatch(l -> l.startsWith("READY")));
    } catch (ConditionTimeoutException | TerminalFailureException e) {
      fail("server did not start: " + serverOutput, e);
    }
  }

  private static String classpath() throws Exception {
    List<String> entries = new ArrayList<>();
    for (Class<?> type :
        List.of(
            DhcpServer.class,
            MonotonicClock.class,
            dev.elector.examples.CommandLines.class,
            picocli.CommandLine.class,
            org.slf4j.LoggerFactory.class,
            Class.forName("org.slf4j.simple.SimpleLogger"))) {
      entries.add(
          Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    }
    return String.join(":", entries);
  }

  /**
   * Writes a udhcpc script that records each event's environment and configures the address when
   * bound.
   */
  private static Path clientScript(Path events) throws IOException {
    Path script = work.resolve("udhcpc-" + events.getFileName() + ".sh");
    Files.writeString(
        script,
        String.join(
            "\n",
            "#!/bin/sh",
            "{ echo \"event=$1\"; env | grep -E '^(ip|subnet|mask|router|dns|domain|search|ntpsrv|lease|serverid)='; }"
                + " > "
                + events
                + "/$1",
            "if [ \"$1\" = bound ]; then ip addr add \"$ip/$mask\" dev \"$interface\"; fi",
            ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  private static Map<String, String> env(Path file) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    for (String line : Files.readAllLines(file)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  @Test
  @Order(1)
  void udhcpcGetsExactlyTheLeasedAddressWithThePoolsOptions() throws Exception {
    Path events = Files.createDirectory(work.resolve("known"));

    Result client =
        run(
            20,
            "ip",
            "netns",
            "exec",
            CLIENT_NS,
            "udhcpc",
            "-f",
            "-q",
            "-n",
            "-t",
            "3",
            "-T",
            "1",
            "-i",
            CLIENT_IF,
            "-s",
            clientScript(events).toString(),
            "-O",
            "ntpsrv",
            "-O",
            "search");
    must("ip", "-n", CLIENT_NS, "addr", "flush", "dev", CLIENT_IF);

    assertEquals(0, client.exit, "udhcpc failed: " + client.output + "\nserver: " + serverOutput);
    Map<String, String> bound = env(events.resolve("bound"));
    assertEquals("192.0.2.10", bound.get("ip"), bound.toString());
    assertEquals("255.255.255.0", bound.get("subnet"));
    assertEquals("192.0.2.254", bound.get("router"));
    assertEquals("192.0.2.53 192.0.2.54", bound.get("dns"));
    assertEquals("example.test", bound.get("domain"));
    assertEquals("example.test lab.example.test", bound.get("search"));
    assertEquals("192.0.2.123", bound.get("ntpsrv"));
    assertEquals("4", bound.get("lease"));
    assertEquals("192.0.2.1", bound.get("serverid"));
    // The server prints each OUTCOME line before it answers, but the reader thread takes the lines
    // from the server's output pipe in its own time.
    await("the server's OUTCOME lines")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              assertTrue(
                  serverOutput.contains(
                      "OUTCOME DISCOVER OFFERED mac="
                          + KNOWN_MAC
                          + " ip=192.0.2.10 to=255.255.255.255:68"),
                  serverOutput.toString());
              assertTrue(
                  serverOutput.contains(
                      "OUTCOME REQUEST ACKED mac="
                          + KNOWN_MAC
                          + " ip=192.0.2.10 state=SELECTING to=255.255.255.255:68"),
                  serverOutput.toString());
            });
  }

  /** udhcpc raises a 4 s lease to its own minimum and renews after about 15 s, by unicast. */
  @Test
  @Order(2)
  void udhcpcRenewsByUnicastAndIsAcknowledgedInRenewingState() throws Exception {
    Path events = Files.createDirectory(work.resolve("renew"));
    Process client =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                CLIENT_NS,
                "udhcpc",
                "-f",
                "-t",
                "3",
                "-T",
                "1",
                "-i",
                CLIENT_IF,
                "-s",
                clientScript(events).toString())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("renew.log").toFile())
            .start();
    try {
      await("udhcpc's renewal")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .failFast("udhcpc exited", () -> !client.isAlive())
          .until(() -> Files.exists(events.resolve("renew")));
    } catch (ConditionTimeoutException | TerminalFailureException e) {
      fail(
          "no renewal: "
              + Files.readString(work.resolve("renew.log"))
              + "\nserver: "
              + serverOutput,
          e);
    } finally {
      client.destroy();
      client.waitFor(5, TimeUnit.SECONDS);
      run(10, "ip", "-n", CLIENT_NS, "addr", "flush", "dev", CLIENT_IF);
    }
    assertEquals("192.0.2.10", env(events.resolve("renew")).get("ip"));
    await("the server's OUTCOME line of the renewal")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () ->
                assertTrue(
                    serverOutput.contains(
                        "OUTCOME REQUEST ACKED mac="
                            + KNOWN_MAC
                            + " ip=192.0.2.10 state=RENEWING to=192.0.2.10:68"),
                    serverOutput.toString()));
  }

  @Test
  @Order(3)
  void aClientWithAnUnknownMacGetsNothing() throws Exception {
    must("ip", "-n", CLIENT_NS, "link", "set", CLIENT_IF, "address", UNKNOWN_MAC);
    Path events = Files.createDirectory(work.resolve("unknown"));

    Result client =
        run(
            20,
            "ip",
            "netns",
            "exec",
            CLIENT_NS,
            "udhcpc",
            "-f",
            "-q",
            "-n",
            "-t",
            "3",
            "-T",
            "1",
            "-i",
            CLIENT_IF,
            "-s",
            clientScript(events).toString());

    assertNotEquals(0, client.exit, "udhcpc got a lease: " + client.output);
    assertFalse(Files.exists(events.resolve("bound")));
    assertTrue(
        serverOutput.stream()
            .anyMatch(
                l ->
                    l.startsWith("OUTCOME DISCOVER IGNORED mac=" + UNKNOWN_MAC)
                        && l.endsWith("because=UNKNOWN_CLIENT")),
        serverOutput.toString());
    assertTrue(
        serverOutput.stream().noneMatch(l -> l.contains(UNKNOWN_MAC) && l.contains(" to=")),
        serverOutput.toString());
  }

  private record Result(int exit, String output) {}

  private static void must(String... command) throws Exception {
    Result result = run(10, command);
    if (result.exit != 0) {
      fail(String.join(" ", command) + " failed: " + result.output);
    }
  }

  private static Result run(int timeoutSeconds, String... command) throws Exception {
    Path log = Files.createTempFile("dhcp-it", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(-1, "timed out after " + timeoutSeconds + " s: " + Files.readString(log));
      }
      return new Result(process.exitValue(), Files.readString(log));
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
