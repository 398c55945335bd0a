package dev.elector.dhcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The static server's command line: what it accepts, and every mistake named with its fix. */
class StaticDhcpServerMainTest {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @Test
  void aFullCommandLineMakesAServerOnItsPort() throws Exception {
    DhcpServer server =
        StaticDhcpServerMain.parse(
                new String[] {
                  "--bind",
                  "127.0.0.1",
                  "--port",
                  "0",
                  "--cidr",
                  "192.0.2.0/24",
                  "--server-ip",
                  "192.0.2.1",
                  "--router",
                  "192.0.2.254",
                  "--dns",
                  "192.0.2.53,192.0.2.54",
                  "--search",
                  "example.test,lab.example.test",
                  "--lease-time",
                  "4",
                  "--lease",
                  "02:00:00:00:00:01=192.0.2.10",
                  "--lease=02:00:00:00:00:02=192.0.2.11"
                },
                out)
            .orElseThrow();
    try {
      server.start();
      assertTrue(server.localPort() > 0);
    } finally {
      server.close();
    }
  }

  @Test
  void everyMistakeIsNamedAtOnceWithItsFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StaticDhcpServerMain.parse(
                    new String[] {
                      "--cidr",
                      "192.0.2.0/33",
                      "--dns",
                      "192.0.2.x",
                      "--lease",
                      "02:00:00:00:00:01",
                      "--lease-time",
                      "0",
                      "--colour",
                      "red"
                    },
                    out));
    String message = e.getMessage();
    assertTrue(message.contains("'192.0.2.0/33' is not a network like 192.0.2.0/24"), message);
    assertTrue(message.contains("'192.0.2.x' is not an IPv4 address like 192.0.2.1"), message);
    assertTrue(
        message.contains("--lease '02:00:00:00:00:01' must be MAC=IP, like 02:00:00:00:00:01="),
        message);
    assertTrue(message.contains("--lease-time 0 must be at least 1 second"), message);
    assertTrue(message.contains("--colour"), message);
  }

  @Test
  void cidrAndALeaseAreRequired() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StaticDhcpServerMain.parse(new String[] {"--port", "0"}, out));
    assertTrue(e.getMessage().contains("--cidr"), e.getMessage());
    assertTrue(e.getMessage().contains("--lease"), e.getMessage());
  }

  @Test
  void helpPrintsTheUsageAndMakesNoServer() {
    assertTrue(StaticDhcpServerMain.parse(new String[] {"--help"}, out).isEmpty());
    String usage = printed.toString(StandardCharsets.UTF_8);
    assertTrue(usage.contains("--lease=MAC=IP"), usage);
    assertEquals(-1, usage.indexOf("Exception"), usage);
  }
}
