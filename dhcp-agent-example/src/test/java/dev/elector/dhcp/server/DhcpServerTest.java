package dev.elector.dhcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MalformedPacketException;
import dev.elector.dhcp.codec.MessageType;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The UDP front end on loopback: the only real-socket, real-clock unit test of the server. */
class DhcpServerTest {
  private static final AtomicInteger SERVERS = new AtomicInteger();
  private static final Ipv4Address SERVER_IP = Ipv4Address.parse("127.0.0.1");
  private static final Ipv4Address CLIENT_IP = Ipv4Address.parse("127.0.0.2");
  private static final MacAddress MAC = MacAddress.parse("02:00:00:00:00:01");
  private static final MacAddress STRANGER = MacAddress.parse("02:00:00:00:00:99");

  private final PoolOptions pool =
      PoolOptions.builder().serverIp(SERVER_IP).cidr(Ipv4Cidr.parse("127.0.0.0/8")).build();
  private final RecordingLeaseSource leases =
      new RecordingLeaseSource(StaticLeaseSource.of(pool, Map.of(MAC, CLIENT_IP)));
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private final String threadName = "dhcp-server-test-" + SERVERS.incrementAndGet();
  private DatagramSocket client;
  private DhcpServer server;

  @BeforeEach
  void start() throws IOException {
    client = new DatagramSocket(new InetSocketAddress(CLIENT_IP.toInetAddress(), 0));
    client.setSoTimeout(2_000);
    server =
        DhcpServer.builder()
            .engine(new DhcpEngine(leases))
            .bindAddress(SERVER_IP)
            .port(0)
            .clientPort(client.getLocalPort())
            .broadcastAddress(CLIENT_IP)
            .threadName(threadName)
            .listener(
                new DhcpListener() {
                  @Override
                  public void handled(
                      InetSocketAddress from, DhcpMessage request, Outcome outcome) {
                    heard.add(outcome.kind().name());
                  }

                  @Override
                  public void malformed(InetSocketAddress from, MalformedPacketException problem) {
                    heard.add("malformed");
                  }
                })
            .build();
    server.start();
    server.setServing(true);
  }

  @AfterEach
  void stop() {
    server.close();
    client.close();
  }

  private void send(byte[] payload) throws IOException {
    client.send(
        new DatagramPacket(
            payload,
            payload.length,
            new InetSocketAddress(SERVER_IP.toInetAddress(), server.localPort())));
  }

  private static byte[] discover(MacAddress mac, int xid) {
    return DhcpMessage.builder()
        .mac(mac)
        .xid(xid)
        .options(DhcpOptions.builder().messageType(MessageType.DISCOVER).build())
        .build()
        .encode();
  }

  private DhcpMessage receive() throws Exception {
    byte[] buffer = new byte[2048];
    DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
    client.receive(packet);
    return DhcpMessage.decode(Arrays.copyOf(buffer, packet.getLength()));
  }

  /** Waits, on the real clock, until the server's counters satisfy {@code condition}. */
  private void awaitStats(Predicate<DhcpServerStats> condition) throws InterruptedException {
    awaitStats(server, condition);
  }

  @Test
  void answersADiscoverWithAnOfferFromPortOfTheServer() throws Exception {
    send(discover(MAC, 1));

    byte[] buffer = new byte[2048];
    DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
    client.receive(packet);
    assertEquals(server.localPort(), packet.getPort(), "replies come from the server port");
    DhcpMessage offer = DhcpMessage.decode(Arrays.copyOf(buffer, packet.getLength()));

    assertEquals(1, offer.xid());
    assertEquals(CLIENT_IP, offer.yiaddr());
    assertEquals(java.util.Optional.of(MessageType.OFFER), offer.options().messageType());
    assertEquals(List.of("OFFERED"), heard);
    awaitStats(s -> s.replied() == 1);
  }

  @Test
  void answersARenewalByUnicastToCiaddr() throws Exception {
    byte[] renew =
        DhcpMessage.builder()
            .mac(MAC)
            .xid(2)
            .ciaddr(CLIENT_IP)
            .options(DhcpOptions.builder().messageType(MessageType.REQUEST).build())
            .build()
            .encode();
    send(renew);

    DhcpMessage ack = receive();

    assertEquals(2, ack.xid());
    assertEquals(java.util.Optional.of(MessageType.ACK), ack.options().messageType());
    assertEquals(CLIENT_IP, ack.ciaddr());
  }

  @Test
  void countsAndSkipsMalformedDatagramsWithoutTouchingLeasesAndKeepsServing() throws Exception {
    send(new byte[] {1, 2, 3});
    byte[] badCookie = discover(MAC, 3);
    badCookie[236] = 0;
    send(badCookie);
    send(discover(MAC, 4));

    DhcpMessage offer = receive();

    assertEquals(4, offer.xid(), "the first reply answers the first valid request");
    awaitStats(s -> s.malformed() == 2);
    assertEquals(List.of("malformed", "malformed", "OFFERED"), heard);
    assertEquals(List.of("leaseFor " + MAC, "options"), leases.calls());
  }

  @Test
  void staysSilentForAnUnknownMac() throws Exception {
    send(discover(STRANGER, 5));
    send(discover(MAC, 6));

    assertEquals(6, receive().xid());
    awaitStats(s -> s.unanswered() == 1);
  }

  @Test
  void answersNothingWhileNotServingAndAgainOnceServing() throws Exception {
    server.setServing(false);
    send(discover(MAC, 7));
    awaitStats(s -> s.notServing() == 1);
    assertFalse(server.isServing());

    server.setServing(true);
    send(discover(MAC, 8));

    assertEquals(8, receive().xid(), "no reply to the request received while not serving");
    assertEquals(List.of("OFFERED"), heard);
    assertTrue(leases.calls().stream().noneMatch(c -> c.contains("7")));
  }

  @Test
  void answersNothingWhileTheServingGateIsClosed() throws Exception {
    AtomicBoolean termActive = new AtomicBoolean(false);
    DhcpServer gated = gatedServer(termActive::get);
    try {
      sendTo(gated, discover(MAC, 10));
      awaitStats(gated, s -> s.notServing() == 1);
      assertFalse(gated.isServing());

      termActive.set(true);
      sendTo(gated, discover(MAC, 11));

      assertEquals(11, receive().xid());
      assertTrue(gated.isServing());
    } finally {
      gated.close();
    }
  }

  @Test
  void withholdsAReplyWhenTheGateClosesWhileItIsBeingPrepared() throws Exception {
    // Open for the check before decoding, closed for the check before sending: the term ended
    // while the engine was deciding, so the reply must not leave.
    AtomicInteger checks = new AtomicInteger();
    DhcpServer gated = gatedServer(() -> checks.incrementAndGet() == 1);
    try {
      sendTo(gated, discover(MAC, 12));
      awaitStats(gated, s -> s.notServing() == 1);

      assertEquals(0, gated.stats().replied());
      assertThrows(
          SocketTimeoutException.class,
          () -> {
            client.setSoTimeout(300);
            receive();
          });
    } finally {
      gated.close();
    }
  }

  private DhcpServer gatedServer(BooleanSupplier gate) throws IOException {
    server.close(); // only the gated server may answer on the client's port
    DhcpServer gated =
        DhcpServer.builder()
            .engine(new DhcpEngine(leases))
            .bindAddress(SERVER_IP)
            .port(0)
            .clientPort(client.getLocalPort())
            .broadcastAddress(CLIENT_IP)
            .threadName(threadName + "-gated")
            .servingGate(gate)
            .build();
    gated.start();
    gated.setServing(true);
    return gated;
  }

  private void sendTo(DhcpServer target, byte[] payload) throws IOException {
    client.send(
        new DatagramPacket(
            payload,
            payload.length,
            new InetSocketAddress(SERVER_IP.toInetAddress(), target.localPort())));
  }

  private static void awaitStats(DhcpServer target, Predicate<DhcpServerStats> condition) {
    Awaitility.await("the server's stats")
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(target::stats, condition);
  }

  @Test
  void startIsIdempotentAndCloseStopsTheThreadAndFreesThePort() throws Exception {
    server.start();
    int port = server.localPort();
    assertTrue(threadAlive());

    server.close();
    server.close();

    assertFalse(threadAlive(), "receive thread still running after close");
    assertThrows(IllegalStateException.class, server::start);
    try (DatagramSocket reuse =
        new DatagramSocket(new InetSocketAddress(SERVER_IP.toInetAddress(), port))) {
      assertEquals(port, reuse.getLocalPort());
    }
  }

  @Test
  void aClosedServerNeverAnswers() throws Exception {
    server.close();
    send(discover(MAC, 9));

    assertThrows(
        SocketTimeoutException.class,
        () -> {
          client.setSoTimeout(300);
          receive();
        });
  }

  private boolean threadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
  }
}
