package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import io.kubernetes.client.openapi.ApiClient;
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
 * A lock call whose stage is cancelled, as the elector cancels a call past its callTimeout, ends
 * its HTTP exchange on the spot: the OkHttp call is cancelled, which closes the connection to a
 * server that has not answered, and the request thread is free at once, long before requestTimeout.
 */
class CancelledRequestTest {
  private final ServerSocket server = silentServer();
  private final ExecutorService oneThread = Executors.newSingleThreadExecutor();
  private final CountDownLatch requestArrived = new CountDownLatch(1);
  private final CompletableFuture<Void> connectionClosed = new CompletableFuture<>();

  @AfterEach
  void stop() throws IOException {
    oneThread.shutdownNow();
    server.close();
  }

  private static ServerSocket silentServer() {
    try {
      return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads the request and never answers; notes when the client closes the connection. */
  private void acceptOne() {
    Thread thread =
        new Thread(
            () -> {
              try (Socket socket = server.accept();
                  InputStream in = socket.getInputStream()) {
                requestArrived.countDown();
                while (in.read() != -1) {
                  // the request, then nothing until the client closes
                }
                connectionClosed.complete(null);
              } catch (IOException e) {
                connectionClosed.completeExceptionally(e);
              }
            },
            "silent-server");
    thread.setDaemon(true);
    thread.start();
  }

  @Test
  void aCancelledReadClosesItsConnectionAndFreesItsThreadAtOnce() throws Exception {
    acceptOne();
    KubeLock lock =
        LeaseLock.newBuilder(
                new ApiClient()
                    .setBasePath("http://127.0.0.1:" + server.getLocalPort())
                    .setReadTimeout(0))
            .namespace("ns")
            .name("lock")
            .identity("me")
            .requestTimeout(Duration.ofMinutes(1))
            .executor(oneThread)
            .build();
    CompletableFuture<?> read = lock.read(Duration.ofSeconds(5)).toCompletableFuture();
    assertTrue(requestArrived.await(10, TimeUnit.SECONDS), "the read reaches the server");

    read.cancel(false);

    connectionClosed.get(10, TimeUnit.SECONDS); // long before the minute of requestTimeout
    assertEquals("free", oneThread.submit(() -> "free").get(10, TimeUnit.SECONDS));
  }

  /**
   * Each call carries the elector's callTimeout down to its request: with a requestTimeout of a
   * minute on the lock, the first read against a server that never answers still ends its exchange
   * at the call's 500 ms, closing the connection and freeing the request thread.
   */
  @Test
  void theElectorsCallTimeoutEndsItsRequest() throws Exception {
    acceptOne();
    KubeLock lock =
        LeaseLock.newBuilder(
                new ApiClient()
                    .setBasePath("http://127.0.0.1:" + server.getLocalPort())
                    .setReadTimeout(0))
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
      connectionClosed.get(10, TimeUnit.SECONDS);
      assertEquals("free", oneThread.submit(() -> "free").get(10, TimeUnit.SECONDS));
    } finally {
      elector.close();
    }
  }
}
