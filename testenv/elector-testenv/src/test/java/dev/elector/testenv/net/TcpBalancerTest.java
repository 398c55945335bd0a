package dev.elector.testenv.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TcpBalancerTest {
  private final List<ServerSocket> backends = new ArrayList<>();
  private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

  /** A backend that answers every connection with the byte {@code id}, then echoes. */
  private InetSocketAddress backend(int id) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    backends.add(server);
    Thread thread =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket socket = server.accept();
                  toClose.add(socket);
                  socket.getOutputStream().write(id);
                  socket.getOutputStream().flush();
                } catch (IOException e) {
                  return;
                }
              }
            });
    thread.setDaemon(true);
    thread.start();
    return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
  }

  /** A loopback address on which nothing listens. */
  private static InetSocketAddress closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new InetSocketAddress(s.getInetAddress(), s.getLocalPort());
    }
  }

  private int connectAndRead(TcpBalancer balancer) throws IOException {
    Socket socket = new Socket();
    toClose.add(socket);
    socket.connect(balancer.address(), 2_000);
    socket.setSoTimeout(5_000);
    return socket.getInputStream().read();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    for (ServerSocket s : backends) {
      s.close();
    }
  }

  @Test
  void spreadsConnectionsInTurnAndSkipsABackendThatRefuses() throws Exception {
    try (TcpBalancer balancer =
        TcpBalancer.start("t", List.of(backend(1), closedPort(), backend(3)))) {
      List<Integer> seen = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        seen.add(connectAndRead(balancer));
      }
      // Turn 0 -> 1, turn 1 -> refused, so 3; turn 2 -> 3; and again.
      assertEquals(List.of(1, 3, 3, 1, 3, 3), seen);
      assertEquals(2, balancer.connections(0));
      assertEquals(0, balancer.connections(1));
      assertEquals(4, balancer.connections(2));
    }
  }

  @Test
  void drainClosesTheBackendsConnectionsAndTakesItOutOfRotationUntilRestored() throws Exception {
    try (TcpBalancer balancer = TcpBalancer.start("t", List.of(backend(1), backend(2)))) {
      Socket first = new Socket();
      toClose.add(first);
      first.connect(balancer.address(), 2_000);
      first.setSoTimeout(5_000);
      InputStream in = first.getInputStream();
      assertEquals(1, in.read());

      balancer.drain(0);
      assertEquals(-1, in.read()); // closed by the drain
      assertEquals(
          List.of(2, 2, 2),
          List.of(connectAndRead(balancer), connectAndRead(balancer), connectAndRead(balancer)));

      balancer.restore(0);
      List<Integer> seen = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        seen.add(connectAndRead(balancer));
      }
      assertEquals(2, seen.stream().distinct().count(), "both backends serve again: " + seen);
    }
  }

  @Test
  void noTargetIsAClearError() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TcpBalancer.start("t", List.of()));
    assertEquals(
        "a balancer needs at least one target; pass the addresses of the servers", e.getMessage());
  }
}
