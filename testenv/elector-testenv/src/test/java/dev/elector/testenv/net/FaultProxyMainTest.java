package dev.elector.testenv.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The standalone forwarder's command line. */
class FaultProxyMainTest {

  @Test
  void printsReadyWithTheBoundAddressAndForwards() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (EchoServer echo = new EchoServer();
        FaultProxy proxy =
            FaultProxyMain.start(
                new String[] {
                  "--listen", "127.0.0.1:0", "--target", "127.0.0.1:" + echo.address().getPort()
                },
                new PrintStream(out, true, StandardCharsets.UTF_8));
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.address().getPort())) {
      client.setSoTimeout(5_000);
      client.getOutputStream().write(new byte[] {1, 2, 3});

      assertArrayEquals(new byte[] {1, 2, 3}, client.getInputStream().readNBytes(3));
      assertEquals(
          "READY 127.0.0.1:" + proxy.address().getPort() + System.lineSeparator(),
          out.toString(StandardCharsets.UTF_8));
    }
  }

  @Test
  void badArgumentsNameTheProblemAndTheUsage() {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> FaultProxyMain.start(new String[] {"--listen", "127.0.0.1:0"}, out));
    IllegalArgumentException port =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                FaultProxyMain.start(
                    new String[] {"--listen", "127.0.0.1:x", "--target", "127.0.0.1:1"}, out));
    IllegalArgumentException unknown =
        assertThrows(
            IllegalArgumentException.class,
            () -> FaultProxyMain.start(new String[] {"--faults", "all"}, out));

    assertTrue(missing.getMessage().contains("--target"), missing.getMessage());
    assertTrue(port.getMessage().contains("127.0.0.1:x"), port.getMessage());
    assertTrue(unknown.getMessage().contains(FaultProxyMain.USAGE), unknown.getMessage());
  }

  @Test
  void parsesBracketedIpv6() {
    assertEquals(6443, FaultProxyMain.hostPort("--target", "[::1]:6443").getPort());
    assertTrue(FaultProxyMain.hostPort("--target", "[::1]:6443").getAddress().isLoopbackAddress());
  }
}
