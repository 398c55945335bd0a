package dev.elector.dhcp.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.elector.ippool.IPPoolRef;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The watcher against a scripted HTTP server standing in for the API server. */
class PoolWatcherTest {
  private static final String PATH =
      "/apis/network.harvesterhci.io/v1alpha1/namespaces/default/ippools";

  /** Answers one request of the watcher. */
  private interface Answer {
    void answer(HttpExchange exchange, int index) throws Exception;
  }

  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<Long> requestNanos = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private final PoolLeaseCache cache =
      new PoolLeaseCache(
          new IPPoolRef("default", "net-48"), Optional.empty(), Optional.empty(), s -> {});
  private HttpServer server;
  private volatile Answer answer;

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(handlers);
    server.createContext(
        PATH,
        exchange -> {
          int index;
          synchronized (requests) {
            index = requests.size();
            requests.add(exchange.getRequestURI().getRawQuery());
            requestNanos.add(System.nanoTime());
          }
          try {
            answer.answer(exchange, index);
          } catch (Exception e) {
            exchange.sendResponseHeaders(500, -1);
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  @AfterEach
  void stopServer() {
    release.countDown();
    server.stop(0);
    handlers.shutdownNow();
  }

  private PoolWatcher watcher() {
    ApiClient client =
        new ClientBuilder()
            .setBasePath("http://127.0.0.1:" + server.getAddress().getPort())
            .build();
    return new PoolWatcher(client, cache);
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static String list(String version, String... items) {
    return "{\"kind\":\"IPPoolList\",\"metadata\":{\"resourceVersion\":\""
        + version
        + "\"},\"items\":["
        + String.join(",", items)
        + "]}";
  }

  private static String pool(String version) {
    return JSON.serialize(Pools.pool(version, Map.of("192.0.2.10", "52:54:00:aa:00:01")));
  }

  /**
   * Starts a watch answer: the events, one a line, then the stream stays open until the test ends.
   */
  private void stream(HttpExchange exchange, String... events) throws Exception {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    for (String event : events) {
      out.write((event + "\n").getBytes(StandardCharsets.UTF_8));
    }
    out.flush();
    release.await();
  }

  @Test
  void theListGivesTheWholeStateThenTheWatchOfTheOneNameGivesItsChangesAndCloseEndsIt()
      throws Exception {
    answer =
        (exchange, index) -> {
          if (index == 0) {
            send(exchange, 200, list("5"));
          } else {
            stream(exchange, "{\"type\":\"ADDED\",\"object\":" + pool("6") + "}");
          }
        };
    PoolWatcher watcher = watcher();
    watcher.start();

    await().atMost(Duration.ofSeconds(5)).until(() -> cache.snapshot().isPresent());
    assertEquals("6", cache.snapshot().orElseThrow().resourceVersion());
    assertTrue(cache.isSynced(), "the empty list was the initial sync");
    assertEquals(2, requests.size(), requests.toString());
    assertTrue(requests.get(0).contains("fieldSelector=metadata.name%3Dnet-48"), requests.get(0));
    assertFalse(requests.get(0).contains("watch=true"), requests.get(0));
    assertTrue(requests.get(1).contains("fieldSelector=metadata.name%3Dnet-48"), requests.get(1));
    assertTrue(requests.get(1).contains("watch=true"), requests.get(1));
    assertTrue(requests.get(1).contains("resourceVersion=5"), requests.get(1));

    long closing = System.nanoTime();
    watcher.close();
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
    assertTrue(millis < 1_000, "close() with a watch open took " + millis + " ms");
    // nothing after close: the request count holds for a whole window in which a reconnect of a
    // watcher still running would have come
    await()
        .during(Duration.ofMillis(700))
        .atMost(Duration.ofSeconds(2))
        .until(() -> requests.size() == 2);
    assertEquals(0, watcher.failures());
  }

  @Test
  void aWatchTooOldListsAgainAndTheListReplacesTheState() {
    answer =
        (exchange, index) -> {
          switch (index) {
            case 0 -> send(exchange, 200, list("5", pool("5")));
            case 1 ->
                stream(
                    exchange,
                    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        + "\"status\":\"Failure\",\"message\":\"too old resource version\","
                        + "\"reason\":\"Expired\",\"code\":410}}");
            case 2 -> send(exchange, 200, list("9"));
            default -> stream(exchange);
          }
        };
    try (PoolWatcher watcher = watcher()) {
      watcher.start();

      await().atMost(Duration.ofSeconds(5)).until(() -> requests.size() >= 4);
      assertTrue(
          cache.notServingReason().orElseThrow().contains("does not exist"),
          "the second list found no pool: " + cache.notServingReason());
      assertFalse(requests.get(2).contains("watch=true"), "listed again: " + requests);
      assertTrue(requests.get(3).contains("resourceVersion=9"), requests.get(3));
      assertEquals(0, watcher.failures(), "410 Gone is not a failure");
    }
  }

  @Test
  void aRefusalIsCountedAndRetriedWithAGrowingBackOff() {
    answer =
        (exchange, index) ->
            send(
                exchange,
                403,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
                    + "\"ippools is forbidden\",\"reason\":\"Forbidden\",\"code\":403}");
    try (PoolWatcher watcher = watcher()) {
      watcher.start();

      await().atMost(Duration.ofSeconds(10)).until(() -> watcher.failures() >= 3);
      assertFalse(cache.isSynced());
      long firstToThird = TimeUnit.NANOSECONDS.toMillis(requestNanos.get(2) - requestNanos.get(0));
      // at least half of 0.5 s, then half of 1 s
      assertTrue(firstToThird >= 750, "three attempts within " + firstToThird + " ms");
    }
  }
}
