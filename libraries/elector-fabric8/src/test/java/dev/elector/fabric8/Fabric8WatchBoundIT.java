package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.WatchPacer;
import dev.elector.lock.LockFailure;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watch bound for the fabric8 watches, on fabric8's own HTTP stack: a stand-in API server
 * answers every watch the way a hostile server or proxy can, and a fabric8 lock's watch (per lock
 * and shared) must send at most {@code 4 + T / 1 s} list and watch requests over a run of T, with
 * its listener told of each break so that the follower polls. Real time, about 6 s per scenario.
 */
class Fabric8WatchBoundIT {
  private static final Duration RUN = Duration.ofSeconds(6);

  /** How long past {@link #RUN} a scenario waits for the requests it expects at least. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static final String LEASE =
      "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":"
          + "\"Lease\",\"metadata\":{\"name\":\"lock\",\"namespace\":\"ns\",\"resourceVersion\":"
          + "\"10\"},\"spec\":{\"holderIdentity\":\"leader\",\"leaseDurationSeconds\":4}}";

  /** What the stand-in server does with lists and watches. */
  private enum Fault {
    EMPTY_STREAM,
    GONE,
    CUT_AFTER_FIRST_EVENT,
    ERRORS,
    THROTTLED
  }

  private HttpServer server;
  private KubernetesClient client;
  private final List<Long> requests = new CopyOnWriteArrayList<>();
  private final AtomicLong breaks = new AtomicLong();

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void aWatchAnsweredWithAnEmptyStreamForever() throws Exception {
    long sent = run(Fault.EMPTY_STREAM, false);

    assertWithinTheBound("empty stream", sent);
    assertTrue(breaks.get() >= 1, "the follower was not told to poll");
  }

  @Test
  void everyWatchAnswered410GoneRightAfterTheList() throws Exception {
    long sent = run(Fault.GONE, false);

    assertWithinTheBound("410 Gone", sent);
    assertTrue(breaks.get() >= 1, "the follower was not told to poll");
  }

  @Test
  void theStreamCutAfterEveryEvent() throws Exception {
    long sent = run(Fault.CUT_AFTER_FIRST_EVENT, false, 4);

    assertWithinTheBound("cut after an event", sent);
    // Counted whenever they came (run waits for them), not within the window: on a starved
    // machine the reconnections come later, never fewer.
    assertTrue(
        requests.size() >= 4, "a watch that brings events keeps reconnecting: " + requests.size());
  }

  @Test
  void everyListAndWatchAnswered500() throws Exception {
    long sent = run(Fault.ERRORS, false);

    assertWithinTheBound("500", sent);
    assertTrue(breaks.get() >= 1, "the follower was not told to poll");
  }

  @Test
  void everyListAnswered429WithRetryAfterWhichIsHonoured() throws Exception {
    long sent = run(Fault.THROTTLED, false);

    assertWithinTheBound("429, Retry-After: 3", sent);
    long honoured = 1 + RUN.toSeconds() / 3 + 1;
    assertTrue(sent <= honoured, "Retry-After: 3 allows at most " + honoured + ": " + sent);
  }

  @Test
  void theSharedWatchKeepsTheSameBound() throws Exception {
    long sent = run(Fault.EMPTY_STREAM, true);

    assertWithinTheBound("shared, empty stream", sent);
  }

  private void assertWithinTheBound(String scenario, long sent) {
    long bound = WatchPacer.bound(RUN);
    System.out.printf(
        "fabric8 watch bound: %s: %d list and watch requests in %d ms (bound %d)%n",
        scenario, sent, RUN.toMillis(), bound);
    assertTrue(sent <= bound, scenario + ": " + sent + " requests in " + RUN + ", bound " + bound);
  }

  /** Runs one lock's watch against the stand-in for {@link #RUN}; the requests it sent. */
  private long run(Fault fault, boolean shared) throws Exception {
    return run(fault, shared, 0);
  }

  /**
   * Runs one lock's watch against the stand-in for {@link #RUN}, then for as long as it takes the
   * stand-in to have seen {@code atLeast} requests (up to {@link #PATIENCE}); the requests it sent
   * within {@link #RUN}.
   */
  private long run(Fault fault, boolean shared, int atLeast) throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", exchange -> answer(exchange, fault));
    server.start();
    client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                    .build())
            .build();
    KubeLock lock =
        Fabric8LeaseLock.newBuilder(client)
            .namespace("ns")
            .name("lock")
            .identity("follower")
            .requestTimeout(Duration.ofSeconds(2))
            .sharedWatch(shared)
            .build();
    long start = System.nanoTime();
    Closeable watch =
        lock.watch(
                read -> {
                  if (read instanceof LockFailure) {
                    breaks.incrementAndGet();
                  }
                })
            .orElseThrow();
    try {
      LockSupport.parkNanos(RUN.toNanos() - (System.nanoTime() - start));
      long end = start + RUN.toNanos();
      long patience = end + PATIENCE.toNanos();
      while (requests.size() < atLeast && System.nanoTime() - patience < 0) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // polls the stand-in's count
      }
      return requests.stream().filter(t -> t - end < 0).count();
    } finally {
      watch.close();
    }
  }

  private void answer(HttpExchange exchange, Fault fault) throws IOException {
    requests.add(System.nanoTime());
    boolean watch = String.valueOf(exchange.getRequestURI().getQuery()).contains("watch=true");
    try (exchange) {
      if (fault == Fault.ERRORS) {
        send(exchange, 500, status(500, "InternalError"));
      } else if (fault == Fault.THROTTLED) {
        exchange.getResponseHeaders().add("Retry-After", "3");
        send(exchange, 429, status(429, "TooManyRequests"));
      } else if (!watch) {
        send(
            exchange,
            200,
            "{\"kind\":\"LeaseList\",\"apiVersion\":\"coordination.k8s.io/v1\","
                + "\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
                + LEASE
                + "]}");
      } else if (fault == Fault.GONE) {
        send(exchange, 410, status(410, "Expired"));
      } else if (fault == Fault.EMPTY_STREAM) {
        send(exchange, 200, "");
      } else {
        send(
            exchange,
            200,
            "{\"type\":\"MODIFIED\",\"object\":" + LEASE.replace("\"10\"", "\"11\"") + "}\n");
      }
    }
  }

  private static String status(int code, String reason) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\""
        + reason
        + " from the stand-in server\",\"reason\":\""
        + reason
        + "\",\"code\":"
        + code
        + "}";
  }

  private static void send(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
