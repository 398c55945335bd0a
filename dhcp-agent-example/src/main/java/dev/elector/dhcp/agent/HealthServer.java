package dev.elector.dhcp.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The agent's HTTP endpoints, for the kubelet's probes and for people:
 *
 * <ul>
 *   <li>{@code /healthz}: 200 unless the elector is unhealthy (a leader that missed its renewals,
 *       stalled threads) or the leader cannot do its duty (address or server failed); liveness.
 *   <li>{@code /readyz}: 200 once the initial sync is done and the pool can be served; readiness.
 *   <li>{@code /metrics}: the elector's meters in the Prometheus text format, among them client-go's
 *       {@code leader_election_master_status}.
 *   <li>{@code /leases} (only with {@code --expose-leases}): the lease cache as JSON, read-only.
 * </ul>
 *
 * Every probe answer is {@code text/plain} one line (JSON for {@code /leases}); any method but GET and
 * HEAD gets 405, so nothing here can change the agent.
 */
final class HealthServer implements AutoCloseable {

  /** The content type of the Prometheus text exposition format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  /** An answer to a probe: empty problem means healthy. */
  interface Check extends Supplier<Optional<String>> {}

  private final HttpServer http;
  private final ExecutorService executor;

  private HealthServer(HttpServer http, ExecutorService executor) {
    this.http = http;
    this.executor = executor;
  }

  /**
   * Listens on {@code address}.
   *
   * @param leases the JSON dump, or null to leave {@code /leases} out
   * @param metrics the Prometheus text, or null to leave {@code /metrics} out
   * @throws IOException if the address cannot be bound, naming it
   */
  static HealthServer start(InetSocketAddress address, Check liveness, Supplier<String> livenessOk,
      Check readiness, Supplier<String> leases, Supplier<String> metrics) throws IOException {
    HttpServer http;
    try {
      http = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new IOException("cannot listen for health checks on " + address + " (" + e.getMessage()
          + "); pass another --health-addr", e);
    }
    http.createContext("/healthz", exchange -> answer(exchange, liveness.get(), livenessOk));
    http.createContext("/readyz", exchange -> answer(exchange, readiness.get(), () -> "ready"));
    if (leases != null) {
      http.createContext("/leases", exchange -> {
        if (allowed(exchange)) {
          send(exchange, 200, "application/json", leases.get());
        }
      });
    }
    if (metrics != null) {
      http.createContext("/metrics", exchange -> {
        if (allowed(exchange)) {
          send(exchange, 200, PROMETHEUS_TEXT, metrics.get());
        }
      });
    }
    ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
      Thread t = new Thread(runnable, "dhcp-agent-health");
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(executor);
    http.start();
    return new HealthServer(http, executor);
  }

  /** The bound port (useful when port 0 asked for any). */
  int port() {
    return http.getAddress().getPort();
  }

  private static void answer(HttpExchange exchange, Optional<String> problem,
      Supplier<String> ok) throws IOException {
    if (!allowed(exchange)) {
      return;
    }
    if (problem.isPresent()) {
      send(exchange, 503, "text/plain; charset=utf-8", problem.get() + "\n");
    } else {
      send(exchange, 200, "text/plain; charset=utf-8", ok.get() + "\n");
    }
  }

  private static boolean allowed(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    if (method.equals("GET") || method.equals("HEAD")) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", "GET, HEAD");
    send(exchange, 405, "text/plain; charset=utf-8", "read-only: use GET\n");
    return false;
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      if (!head) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }
}
