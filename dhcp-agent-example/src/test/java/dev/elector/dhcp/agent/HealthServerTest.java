package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HealthServerTest {
  private final AtomicReference<Optional<String>> liveness =
      new AtomicReference<>(Optional.empty());
  private final AtomicReference<Optional<String>> readiness =
      new AtomicReference<>(Optional.of("initial sync of IPPool default/net-48 not done yet"));
  private final HttpClient http = HttpClient.newHttpClient();
  private HealthServer server;

  private HttpResponse<String> call(String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private void start(boolean withLeases) throws Exception {
    server =
        HealthServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            liveness::get,
            () -> "following agent-b",
            readiness::get,
            withLeases ? () -> "{\"leases\":{}}\n" : null,
            () -> "leader_election_master_status{name=\"net-48\"} 1.0\n");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void livenessFollowsTheElectorAndTheDuty() throws Exception {
    start(false);
    assertEquals(200, call("GET", "/healthz").statusCode());
    assertEquals("following agent-b\n", call("GET", "/healthz").body());

    liveness.set(Optional.of("leading but not renewed for PT20S"));

    HttpResponse<String> failing = call("GET", "/healthz");
    assertEquals(503, failing.statusCode());
    assertEquals("leading but not renewed for PT20S\n", failing.body());
  }

  @Test
  void readinessWaitsForTheInitialSync() throws Exception {
    start(false);
    assertEquals(503, call("GET", "/readyz").statusCode());

    readiness.set(Optional.empty());

    assertEquals(200, call("GET", "/readyz").statusCode());
  }

  @Test
  void theLeaseDumpIsServedOnlyWhenAskedForAndIsReadOnly() throws Exception {
    start(false);
    assertEquals(404, call("GET", "/leases").statusCode());
    server.close();

    start(true);
    assertEquals("{\"leases\":{}}\n", call("GET", "/leases").body());
    assertEquals(405, call("POST", "/leases").statusCode());
    assertEquals(405, call("DELETE", "/healthz").statusCode());
  }

  @Test
  void metricsAreServedInThePrometheusTextFormat() throws Exception {
    start(false);
    HttpResponse<String> metrics = call("GET", "/metrics");
    assertEquals(200, metrics.statusCode());
    assertEquals(
        "text/plain; version=0.0.4; charset=utf-8",
        metrics.headers().firstValue("Content-Type").orElseThrow());
    assertEquals("leader_election_master_status{name=\"net-48\"} 1.0\n", metrics.body());
    assertEquals(405, call("POST", "/metrics").statusCode());
  }
}
