package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lock call whose stage is cancelled, as the elector cancels a call past its callTimeout, frees
 * its request thread at once, long before requestTimeout, though the server has not answered.
 * fabric8's HTTP client cannot end the exchange itself before the answer: the lock stops waiting
 * for it.
 */
class Fabric8CancelledRequestTest {
  private final ServerSocket server = silentServer();
  private final ExecutorService oneThread = Executors.newSingleThreadExecutor();
  private final CountDownLatch requestArrived = new CountDownLatch(1);
  private final KubernetesClient client =
      new KubernetesClientBuilder()
          .withConfig(
              new ConfigBuilder()
                  .withMasterUrl("http://127.0.0.1:" + server.getLocalPort())
                  .build())
          .build();

  @AfterEach
  void stop() throws IOException {
    oneThread.shutdownNow();
    client.close();
    server.close();
  }

  private static ServerSocket silentServer() {
    try {
      return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads the request and never answers. */
  private void acceptOne() {
    Thread thread =
        new Thread(
            () -> {
              try (Socket socket = server.accept();
                  InputStream in = socket.getInputStream()) {
                requestArrived.countDown();
                while (in.read() != -1) {
                  // the request, then nothing until the connection ends
                }
              } catch (IOException e) {
                // the server socket closed at the end of the test
              }
            },
            "silent-server");
    thread.setDaemon(true);
    thread.start();
  }

  @Test
  void aCancelledReadFreesItsThreadAtOnce() throws Exception {
    acceptOne();
    KubeLock lock =
        Fabric8LeaseLock.newBuilder(client)
            .namespace("ns")
            .name("lock")
            .identity("me")
            .requestTimeout(Duration.ofMinutes(1))
            .executor(oneThread)
            .build();
    CompletableFuture<?> read = lock.read(Duration.ofSeconds(5)).toCompletableFuture();
    assertTrue(requestArrived.await(10, TimeUnit.SECONDS), "the read reaches the server");

    read.cancel(false);

    assertEquals("free", oneThread.submit(() -> "free").get(10, TimeUnit.SECONDS));
  }

  /**
   * Each call carries the elector's callTimeout down to its request: with a requestTimeout of a
   * minute on the lock, the first read against a server that never answers still ends the wait for
   * its answer at the call's 500 ms and frees the request thread.
   */
  @Test
  void theElectorsCallTimeoutEndsItsRequest() throws Exception {
    acceptOne();
    KubeLock lock =
        Fabric8LeaseLock.newBuilder(client)
            .namespace("ns")
            .name("lock")
            .identity("me")
            .requestTimeout(Duration.ofMinutes(1)) // only the call's own timeout can end it soon
            .executor(oneThread)
            .build();
    LeaderElector elector =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(lock)
                .callbacks(LeaderCallbacks.of(term -> {}, (term, why) -> {}))
                .leaseDuration(Duration.ofSeconds(2))
                .renewDeadline(Duration.ofSeconds(1))
                .retryPeriod(Duration.ofMillis(250))
                .watchWhenFollowing(false) // the elector's call is the only request
                .build());
    try {
      assertTrue(requestArrived.await(10, TimeUnit.SECONDS), "the read reaches the server");
      assertEquals("free", oneThread.submit(() -> "free").get(10, TimeUnit.SECONDS));
    } finally {
      elector.close();
    }
  }
}
