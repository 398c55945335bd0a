package dev.elector.controller;

import dev.elector.examples.ProbeServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves {@code /healthz} (200 while the elector is healthy, else 503 with the reason) and {@code
 * /readyz} (200 once the informers have synced, else 503), as plain text, and {@code /metrics}, the
 * elector's meters in the Prometheus text format (among them client-go's {@code
 * leader_election_master_status}). Read-only: GET and HEAD only.
 */
final class HealthServer implements AutoCloseable {
  private final ProbeServer server;

  private HealthServer(ProbeServer server) {
    this.server = server;
  }

  /**
   * Starts listening.
   *
   * @throws IOException when the address cannot be bound
   */
  static HealthServer start(
      String host,
      int port,
      Supplier<ControllerHealth> health,
      BooleanSupplier ready,
      Supplier<String> metrics)
      throws IOException {
    return start(host, port, health, ready, metrics, java.util.Map.of());
  }

  /** As above, also serving each JSON document of {@code documents} at its path. */
  static HealthServer start(
      String host,
      int port,
      Supplier<ControllerHealth> health,
      BooleanSupplier ready,
      Supplier<String> metrics,
      java.util.Map<String, Supplier<String>> documents)
      throws IOException {
    ProbeServer.Builder builder =
        ProbeServer.newBuilder("ippool-health")
            .probe(
                "/healthz",
                () -> {
                  ControllerHealth h = health.get();
                  return h.healthy() ? Optional.empty() : Optional.of("unhealthy: " + h.detail());
                },
                () -> "ok: " + health.get().detail())
            .probe(
                "/readyz",
                () ->
                    ready.getAsBoolean()
                        ? Optional.empty()
                        : Optional.of("not ready: informers have not synced yet"),
                () -> "ok: informers synced")
            .document("/metrics", ProbeServer.PROMETHEUS_TEXT, metrics);
    documents.forEach((path, body) -> builder.document(path, "application/json", body));
    return new HealthServer(builder.start(new InetSocketAddress(host, port)));
  }

  /** The bound port (useful with port 0). */
  int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }
}
