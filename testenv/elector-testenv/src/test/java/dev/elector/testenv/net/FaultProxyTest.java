package dev.elector.testenv.net;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy on loopback, between real sockets and an echo server. */
class FaultProxyTest {
  private EchoServer echo;
  private FaultProxy proxy;
  private final List<Socket> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.newBuilder().target(echo.address()).name("test").seed(7).start();
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket client : clients) {
      client.close();
    }
    proxy.close();
    echo.close();
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    clients.add(socket);
    socket.connect(proxy.address(), 2_000);
    socket.setSoTimeout(5_000);
    return socket;
  }

  private static byte[] roundTrip(Socket socket, byte[] data) throws IOException {
    socket.getOutputStream().write(data);
    socket.getOutputStream().flush();
    return socket.getInputStream().readNBytes(data.length);
  }

  private static byte[] text(String s) {
    return s.getBytes(US_ASCII);
  }

  @Test
  void passesBytesThroughUnchangedAndCountsThem() throws IOException {
    Socket client = connect();

    assertArrayEquals(text("hello"), roundTrip(client, text("hello")));
    FaultProxy.Stats stats = proxy.stats();
    assertEquals(1, stats.accepted());
    assertEquals(5, stats.bytesToTarget());
    assertEquals(5, stats.bytesToClient());
    assertEquals(0, stats.resets());
    assertEquals(1, stats.open());
  }

  @Test
  void aHalfCloseTravelsBothWays() throws IOException {
    Socket client = connect();
    client.getOutputStream().write(text("last words"));

    client.shutdownOutput();

    InputStream in = client.getInputStream();
    assertArrayEquals(text("last words"), in.readNBytes(10));
    assertEquals(-1, in.read(), "the echo server's FIN reached the client");
  }

  @Test
  void latencyDelaysEachDirection() throws IOException {
    Socket client = connect();
    roundTrip(client, text("warm"));

    proxy.latency(Duration.ofMillis(100), Duration.ofMillis(20));
    long start = System.nanoTime();
    byte[] back = roundTrip(client, text("ping"));
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertArrayEquals(text("ping"), back);
    assertTrue(millis >= 200, "round trip took " + millis + " ms, less than 2 x 100 ms");
  }

  @Test
  void jitterNeverReordersBytes() throws IOException {
    Socket client = connect();
    client.setTcpNoDelay(true); // each small write leaves at once, so the proxy reads many chunks
    proxy.latency(Duration.ZERO, Duration.ofMillis(30));
    byte[] sent = new byte[400];
    new Random(3).nextBytes(sent);

    for (int i = 0; i < sent.length; i += 4) {
      client.getOutputStream().write(sent, i, 4);
    }

    assertArrayEquals(sent, client.getInputStream().readNBytes(sent.length));
  }

  @Test
  void aBlackholeForwardsNothingUntilHealedAndDropsNothing() throws IOException {
    Socket client = connect();
    roundTrip(client, text("before"));
    client.setSoTimeout(200);

    proxy.blackhole();
    client.getOutputStream().write(text("held"));

    assertThrows(SocketTimeoutException.class, () -> client.getInputStream().read());
    proxy.heal();
    client.setSoTimeout(5_000);
    assertArrayEquals(text("held"), client.getInputStream().readNBytes(4));
  }

  @Test
  void aBlackholeAcceptsNewConnectionsButNeverDialsTheTarget() throws IOException {
    proxy.blackhole();

    Socket client = connect();
    client.setSoTimeout(200);
    client.getOutputStream().write(text("anyone?"));

    assertThrows(SocketTimeoutException.class, () -> client.getInputStream().read());
    assertEquals(1, proxy.stats().accepted());
    assertEquals(0, echo.accepted(), "the target saw no connection through the partition");
    proxy.heal();
    client.setSoTimeout(5_000);
    assertArrayEquals(text("anyone?"), client.getInputStream().readNBytes(7));
  }

  @Test
  void resetSendsAnRstToOpenConnectionsAndServesNewOnes() throws IOException {
    Socket client = connect();
    roundTrip(client, text("x"));

    proxy.reset();

    SocketException reset =
        assertThrows(SocketException.class, () -> client.getInputStream().read());
    assertTrue(reset.getMessage().contains("reset"), reset.getMessage());
    assertEquals(1, proxy.stats().resets());
    assertArrayEquals(text("again"), roundTrip(connect(), text("again")));
  }

  @Test
  void resettingAlsoResetsEveryNewConnectionUntilHealed() throws IOException {
    proxy.resetting();

    // The RST may arrive while connect() still waits, or on the first read.
    assertThrows(SocketException.class, () -> roundTrip(connect(), text("x")));
    assertEquals(1, proxy.stats().resets());
    proxy.heal();
    assertArrayEquals(text("ok"), roundTrip(connect(), text("ok")));
  }

  @Test
  void randomResetsHitSomeConnectionsAndSpareOthers() throws IOException {
    proxy.resetRandomly(0.5);
    int survived = 0;
    int reset = 0;

    for (int i = 0; i < 20; i++) {
      try {
        byte[] back = roundTrip(connect(), text("?"));
        survived += back.length == 1 ? 1 : 0;
        reset += back.length == 1 ? 0 : 1; // the RST may also show as an early end of stream
      } catch (SocketException e) {
        reset++;
      }
    }

    assertTrue(survived > 0 && reset > 0, survived + " survived, " + reset + " reset");
    assertEquals(reset, proxy.stats().resets());
  }

  @Test
  void refuseMakesNewConnectionsFailAsIfTheServerWereDown() throws IOException {
    Socket open = connect();
    int port = proxy.address().getPort();

    proxy.refuse();

    assertThrows(ConnectException.class, () -> new Socket().connect(proxy.address(), 2_000));
    assertArrayEquals(
        text("still"), roundTrip(open, text("still")), "open connections are left alone");
    proxy.heal();
    assertEquals(port, proxy.address().getPort());
    assertArrayEquals(text("back"), roundTrip(connect(), text("back")));
  }

  @Test
  void trickleBoundsTheThroughput() throws IOException {
    Socket client = connect();
    proxy.trickle(16_000);
    byte[] data = new byte[8_000];
    new Random(5).nextBytes(data);

    long start = System.nanoTime();
    byte[] back = roundTrip(client, data);
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertArrayEquals(data, back);
    // 8 000 bytes at 16 000 bytes/s, less the 800-byte first slice: at least 450 ms each way.
    assertTrue(millis >= 450, "8000 bytes took only " + millis + " ms at 16000 bytes/s");
  }

  @Test
  void faultsChangeOnOneLiveConnectionWithoutLosingOrReorderingBytes() throws IOException {
    Socket client = connect();
    StringBuilder received = new StringBuilder();

    received.append(new String(roundTrip(client, text("a")), US_ASCII));
    proxy.latency(Duration.ofMillis(30), Duration.ofMillis(30));
    received.append(new String(roundTrip(client, text("b")), US_ASCII));
    proxy.blackhole();
    client.getOutputStream().write(text("c"));
    // A black hole shows as silence: a short read timeout here, the generous one elsewhere.
    client.setSoTimeout(150);
    assertThrows(SocketTimeoutException.class, () -> client.getInputStream().read());
    proxy.heal().trickle(1_000);
    client.setSoTimeout(5_000);
    received.append(new String(client.getInputStream().readNBytes(1), US_ASCII));
    received.append(new String(roundTrip(client, text("d")), US_ASCII));

    assertEquals("abcd", received.toString());
  }

  @Test
  void servesManyConcurrentConnections() throws Exception {
    int connections = 100;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < connections; i++) {
        int seed = i;
        results.add(
            pool.submit(
                () -> {
                  byte[] data = new byte[32 * 1024];
                  new Random(seed).nextBytes(data);
                  try (Socket client = new Socket()) {
                    client.connect(proxy.address(), 5_000);
                    client.setSoTimeout(10_000);
                    return Arrays.equals(data, roundTrip(client, data));
                  }
                }));
      }
      for (Future<Boolean> result : results) {
        assertTrue(result.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(connections, proxy.stats().accepted());
    assertEquals(connections * 32L * 1024, proxy.stats().bytesToClient());
  }

  @Test
  void closeEndsEveryConnectionAndLeavesNoThread() throws Exception {
    FaultProxy second = FaultProxy.newBuilder().target(echo.address()).name("leak-check").start();
    List<Socket> open = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Socket client = new Socket();
      clients.add(client);
      client.connect(second.address(), 2_000);
      client.setSoTimeout(5_000);
      roundTrip(client, text("hi"));
      open.add(client);
    }
    assertEquals(1, threadsNamed("fault-proxy-leak-check"));

    second.close();
    second.close();

    assertEquals(0, threadsNamed("fault-proxy-leak-check"));
    for (Socket client : open) {
      assertEndsOrResets(client);
    }
    assertThrows(ConnectException.class, () -> new Socket().connect(second.address(), 2_000));
    assertThrows(IllegalStateException.class, second::blackhole);
  }

  @Test
  void aTargetThatIsDownResetsTheClient() throws IOException {
    InetSocketAddress dead;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      dead = (InetSocketAddress) s.getLocalSocketAddress();
    }
    try (FaultProxy toNowhere = FaultProxy.start(dead);
        Socket client = new Socket()) {
      try {
        client.connect(toNowhere.address(), 2_000);
      } catch (SocketException resetWhileConnecting) {
        return;
      }
      client.setSoTimeout(5_000);

      assertEndsOrResets(client);
    }
  }

  @Test
  void controlsRejectBadValuesNamingTheFix() {
    IllegalArgumentException latency =
        assertThrows(
            IllegalArgumentException.class,
            () -> proxy.latency(Duration.ofMillis(-1), Duration.ZERO));
    IllegalArgumentException trickle =
        assertThrows(IllegalArgumentException.class, () -> proxy.trickle(0));
    IllegalArgumentException chance =
        assertThrows(IllegalArgumentException.class, () -> proxy.resetRandomly(1.5));
    IllegalArgumentException builder =
        assertThrows(
            IllegalArgumentException.class, () -> FaultProxy.newBuilder().name(" ").start());

    assertTrue(latency.getMessage().contains("Duration.ZERO"), latency.getMessage());
    assertTrue(trickle.getMessage().contains("heal()"), trickle.getMessage());
    assertTrue(chance.getMessage().contains("0-1"), chance.getMessage());
    assertTrue(
        builder.getMessage().contains("target is required")
            && builder.getMessage().contains("name is blank"),
        builder.getMessage());
  }

  private static void assertEndsOrResets(Socket client) {
    try {
      assertEquals(-1, client.getInputStream().read());
    } catch (SocketException expected) {
      // A reset is an acceptable end too.
    } catch (IOException e) {
      throw new AssertionError("expected end of stream or reset, got " + e, e);
    }
  }

  private static long threadsNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(name))
        .count();
  }
}
