package dev.elector.dhcp.agent;

import dev.elector.examples.ProbeServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The agent's HTTP endpoints, for the kubelet's probes and for people:
 *
 * <ul>
 *   <li>{@code /healthz}: 200 unless the elector is unhealthy (a leader that missed its renewals,
 *       stalled threads) or the leader cannot do its duty (address or server failed); liveness.
 *   <li>{@code /readyz}: 200 once the initial sync is done and the pool can be served; readiness.
 *   <li>{@code /metrics}: the elector's meters in the Prometheus text format, among them
 *       client-go's {@code leader_election_master_status}.
 *   <li>{@code /leases} (only with {@code --expose-leases}): the lease cache as JSON, read-only.
 * </ul>
 *
 * Every probe answer is {@code text/plain} one line (JSON for {@code /leases}); any method but GET
 * and HEAD gets 405, so nothing here can change the agent.
 */
final class HealthServer implements AutoCloseable {

  /** An answer to a probe: empty problem means healthy. */
  interface Check extends Supplier<Optional<String>> {}

  private final ProbeServer server;

  private HealthServer(ProbeServer server) {
    this.server = server;
  }

  /**
   * Listens on {@code address}.
   *
   * @param leases the JSON dump, or null to leave {@code /leases} out
   * @param metrics the Prometheus text, or null to leave {@code /metrics} out
   * @throws IOException if the address cannot be bound, naming it
   */
  static HealthServer start(
      InetSocketAddress address,
      Check liveness,
      Supplier<String> livenessOk,
      Check readiness,
      Supplier<String> leases,
      Supplier<String> metrics)
      throws IOException {
    ProbeServer.Builder paths =
        ProbeServer.newBuilder("dhcp-agent-health")
            .probe("/healthz", liveness, livenessOk)
            .probe("/readyz", readiness, () -> "ready");
    if (leases != null) {
      paths.document("/leases", "application/json", leases);
    }
    if (metrics != null) {
      paths.document("/metrics", ProbeServer.PROMETHEUS_TEXT, metrics);
    }
    try {
      return new HealthServer(paths.start(address));
    } catch (IOException e) {
      throw new IOException(
          "cannot listen for health checks on "
              + address
              + " ("
              + e.getMessage()
              + "); pass another --health-addr",
          e);
    }
  }

  /** The bound port (useful when port 0 asked for any). */
  int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }
}
