package dev.elector.examples.hello;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The kubelet's probes, served by the JDK's own HTTP server; each answer is one line of text.
 *
 * <ul>
 *   <li>{@code /healthz}, for the liveness probe: 200 while the elector's {@link
 *       ElectorStats#healthy()}, leading or following, and 503 once it is not (a leader that has not
 *       renewed for longer than leaseDuration, or an elector that is closing). The line is its
 *       {@link ElectorStats#status()}.
 *   <li>{@code /readyz}, for the readiness probe: 200 as soon as the process serves, saying who
 *       leads. A follower is ready too: it is a healthy replica waiting for its turn.
 * </ul>
 */
final class Probes implements AutoCloseable {
  private final HttpServer server;

  private Probes(HttpServer server) {
    this.server = server;
  }

  /**
   * Serves the probes of {@code elector} on {@code port} of every address.
   *
   * @throws IOException if the port cannot be bound
   */
  static Probes start(int port, LeaderElector elector) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext("/healthz", exchange -> {
      ElectorStats stats = elector.stats();
      answer(exchange, stats.healthy() ? 200 : 503, stats.status());
    });
    server.createContext("/readyz", exchange -> answer(exchange, 200, "ready: " + who(elector)));
    server.start();
    return new Probes(server);
  }

  /** Who leads, as this replica sees it: "ID leads" or "ID follows LEADER". */
  static String who(LeaderElector elector) {
    if (elector.isLeader()) {
      return elector.identity() + " leads";
    }
    return elector.identity() + " follows " + elector.observedLeader().orElse("nobody yet");
  }

  private static void answer(HttpExchange exchange, int status, String line) throws IOException {
    byte[] body = (line + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** The bound port: HEALTH_PORT, or the one chosen when HEALTH_PORT is 0. */
  int port() {
    return server.getAddress().getPort();
  }

  /** Stops answering at once. */
  @Override
  public void close() {
    server.stop(0);
  }
}
