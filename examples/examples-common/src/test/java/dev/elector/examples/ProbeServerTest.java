package dev.elector.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProbeServerTest {
  private final AtomicReference<Optional<String>> problem = new AtomicReference<>(Optional.empty());
  private final HttpClient http = HttpClient.newHttpClient();
  private ProbeServer server;

  @BeforeEach
  void start() throws Exception {
    server =
        ProbeServer.newBuilder("probe-test")
            .probe("/healthz", problem::get, () -> "ok: leading")
            .document("/metrics", ProbeServer.PROMETHEUS_TEXT, () -> "up 1.0\n")
            .start(new InetSocketAddress("127.0.0.1", 0));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> call(String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aProbeAnswersItsCurrentStateAsOneLine() throws Exception {
    HttpResponse<String> ok = call("GET", "/healthz");
    assertEquals(200, ok.statusCode());
    assertEquals("ok: leading\n", ok.body());
    assertEquals(ProbeServer.TEXT, ok.headers().firstValue("Content-Type").orElseThrow());

    problem.set(Optional.of("not renewed for PT20S"));

    HttpResponse<String> failing = call("GET", "/healthz");
    assertEquals(503, failing.statusCode());
    assertEquals("not renewed for PT20S\n", failing.body());
  }

  @Test
  void documentsKeepTheirContentTypeAndHeadSendsNoBody() throws Exception {
    HttpResponse<String> metrics = call("GET", "/metrics");
    assertEquals("up 1.0\n", metrics.body());
    assertEquals(
        ProbeServer.PROMETHEUS_TEXT, metrics.headers().firstValue("Content-Type").orElseThrow());

    HttpResponse<String> head = call("HEAD", "/metrics");
    assertEquals(200, head.statusCode());
    assertEquals("", head.body());
  }

  @Test
  void onlyReadsAreAllowedAndUnknownPathsAreNotFound() throws Exception {
    HttpResponse<String> post = call("POST", "/healthz");
    assertEquals(405, post.statusCode());
    assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElseThrow());
    assertEquals(404, call("GET", "/leases").statusCode());
  }
}
