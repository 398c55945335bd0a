package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.elector.kube.KubeLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.testenv.net.FaultProxy;
import dev.elector.testenv.net.TcpBalancer;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Lock requests through a round-robin balancer whose first backend misbehaves and whose second is
 * the API server: a connection that never gets ready, and one that goes dead while it stays open.
 * Either way the lock's next attempt must dial afresh, which the balancer sends to the server.
 */
@KubeTest
class BalancedConnectionsIT {
  /**
   * A server that has bound its port but does not serve yet (an API server starting) accepts TCP
   * and never completes TLS. A lock request whose connection is not ready within a third of its
   * timeout gives that connection up (nothing was sent on it) and dials again within its deadline.
   */
  @Test
  void aConnectionThatNeverGetsReadyIsGivenUpAndTheRequestDialsAgain(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    try (ServerSocket starting = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      holdConnections(starting);
      try (TcpBalancer balancer =
          balancer(
              cluster,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), starting.getLocalPort()))) {
        KubeLock lock = lock(cluster, namespace, balancer, "stalled", Duration.ofSeconds(3));

        LockRead read = read(lock);

        assertInstanceOf(LockRead.Absent.class, read, "answered by the serving server: " + read);
        assertEquals(1, balancer.connections(0), "the stalled connection");
        assertEquals(1, balancer.connections(1), "the second dial");
      }
    }
  }

  /**
   * An HTTP/2 connection that goes dead while it stays open (its server, or the path to it, stops
   * answering without closing it): OkHttp ends only the timed-out stream and would send the next
   * request on the same connection. After a request without an answer the lock's idle connections
   * are closed, so the next request dials afresh.
   */
  @Test
  void afterARequestWithoutAnswerTheNextOneGoesOutOnAFreshConnection(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    try (FaultProxy dying = FaultProxy.newBuilder().name("dying").target(server(cluster)).start();
        TcpBalancer balancer = balancer(cluster, dying.address())) {
      // A third of the request timeout is what a new connection gets to be ready (TCP and TLS)
      // before the lock gives it up and dials the balancer's next backend; on a loaded machine a
      // third of one second is not enough for the first handshake through the two proxies.
      KubeLock lock = lock(cluster, namespace, balancer, "dead", Duration.ofSeconds(3));
      assertInstanceOf(LockRead.Absent.class, read(lock), "through the first path");
      assertEquals(
          List.of(1L, 0L),
          List.of(balancer.connections(0), balancer.connections(1)),
          "the first read went out on one connection, through the proxy that then goes dead");

      dying.blackhole(); // the open connection stops answering
      LockRead unanswered = read(lock);
      LockRead next = read(lock);

      assertInstanceOf(LockFailure.class, unanswered, "no answer on the dead connection");
      assertInstanceOf(LockRead.Absent.class, next, "answered on a fresh connection: " + next);
      assertEquals(1, balancer.connections(0), "the connection that went dead");
      assertEquals(1, balancer.connections(1), "the fresh one");
    }
  }

  private static InetSocketAddress server(KubeCluster cluster) {
    URI uri = URI.create(cluster.server());
    return new InetSocketAddress(uri.getHost(), uri.getPort());
  }

  /** Round robin over {@code first}, then the API server. */
  private static TcpBalancer balancer(KubeCluster cluster, InetSocketAddress first)
      throws IOException {
    return TcpBalancer.start("two-backends", List.of(first, server(cluster)));
  }

  /** A lock on a client of its own with the admin's credentials, through {@code balancer}. */
  private static KubeLock lock(
      KubeCluster cluster,
      KubeNamespace namespace,
      TcpBalancer balancer,
      String name,
      Duration requestTimeout)
      throws IOException {
    ApiClient client = Config.fromConfig(new StringReader(cluster.adminKubeconfigYaml()));
    client.setBasePath("https://127.0.0.1:" + balancer.address().getPort());
    return LeaseLock.newBuilder(client)
        .namespace(namespace.name())
        .name(name)
        .identity("me")
        .requestTimeout(requestTimeout)
        .build();
  }

  private static LockRead read(KubeLock lock) throws Exception {
    return lock.read(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Accepts connections and reads from them without ever answering. */
  private static void holdConnections(ServerSocket listener) {
    Thread thread =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket socket = listener.accept();
                  Thread reader =
                      new Thread(
                          () -> {
                            try (socket;
                                InputStream in = socket.getInputStream()) {
                              while (in.read() != -1) {
                                // the TLS client hello, then nothing
                              }
                            } catch (IOException e) {
                              // closed by the client
                            }
                          },
                          "starting-server-connection");
                  reader.setDaemon(true);
                  reader.start();
                } catch (IOException e) {
                  return; // closed
                }
              }
            },
            "starting-server");
    thread.setDaemon(true);
    thread.start();
  }
}
