package dev.elector.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.elector.ElectorHealth;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves {@code /healthz} (200 while the elector is healthy, else 503 with the reason) and
 * {@code /readyz} (200 once the informers have synced, else 503), as plain text, and
 * {@code /metrics}, the elector's meters in the Prometheus text format (among them client-go's
 * {@code leader_election_master_status}).
 */
final class HealthServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService threads;

  private HealthServer(HttpServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  /**
   * Starts listening.
   *
   * @throws IOException when the address cannot be bound
   */
  static HealthServer start(String host, int port, Supplier<ElectorHealth> health,
      BooleanSupplier ready, Supplier<String> metrics) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    ExecutorService threads = Executors.newSingleThreadExecutor(Threads.daemon("ippool-health"));
    server.setExecutor(threads);
    server.createContext("/healthz", exchange -> {
      ElectorHealth h = health.get();
      answer(exchange, h.healthy() ? 200 : 503, (h.healthy() ? "ok: " : "unhealthy: ")
          + h.detail());
    });
    server.createContext("/readyz", exchange -> {
      boolean synced = ready.getAsBoolean();
      answer(exchange, synced ? 200 : 503, synced ? "ok: informers synced"
          : "not ready: informers have not synced yet");
    });
    server.createContext("/metrics", exchange -> {
      byte[] body = metrics.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return new HealthServer(server, threads);
  }

  /** The bound port (useful with port 0). */
  int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange exchange, int code, String text) throws IOException {
    byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
