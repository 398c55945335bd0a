package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.elector.lock.LockRead;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.testkit.net.TcpBalancer;
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
 * Behind a balancer, a new connection can reach a server that has bound its port but does not serve
 * yet (an API server starting): TCP is accepted, TLS never completes. A lock request whose
 * connection is not ready within a third of its timeout gives that connection up (nothing was sent
 * on it) and dials again within the same deadline, which reaches another server.
 */
@KubeTest
class StalledConnectionIT {
  @Test
  void aConnectionThatNeverGetsReadyIsGivenUpAndTheRequestDialsAgain(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    try (ServerSocket starting = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      holdConnections(starting);
      URI server = URI.create(cluster.server());
      // round robin: the first connection goes to the server that does not serve yet
      try (TcpBalancer balancer =
          TcpBalancer.start(
              "stalled",
              List.of(
                  new InetSocketAddress(InetAddress.getLoopbackAddress(), starting.getLocalPort()),
                  new InetSocketAddress(server.getHost(), server.getPort())))) {
        // the admin's credentials on a client of its own: the suite's admin client stays as it is
        ApiClient client = Config.fromConfig(new StringReader(cluster.adminKubeconfigYaml()));
        client.setBasePath("https://127.0.0.1:" + balancer.address().getPort());
        LeaseLock lock =
            LeaseLock.newBuilder()
                .apiClient(client)
                .namespace(namespace.name())
                .name("stalled")
                .identity("me")
                .requestTimeout(Duration.ofSeconds(3))
                .build();

        LockRead read = lock.read().toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertInstanceOf(LockRead.Absent.class, read, "answered by the serving server: " + read);
        assertEquals(1, balancer.connections(0), "the stalled connection");
        assertEquals(1, balancer.connections(1), "the second dial");
      }
    }
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
