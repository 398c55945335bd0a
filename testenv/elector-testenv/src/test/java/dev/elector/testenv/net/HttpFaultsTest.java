package dev.elector.testenv.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The interceptor in front of a real local HTTP server that counts what reaches it. */
class HttpFaultsTest {
  private HttpServer server;
  private final AtomicInteger served = new AtomicInteger();
  private final HttpFaults faults = HttpFaults.withSeed(11);
  private OkHttpClient client;

  @BeforeEach
  void start() throws IOException {
    // Without TCP_NODELAY the JDK server waits out delayed ACKs, 40 ms per request.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext(
        "/",
        exchange -> {
          served.incrementAndGet();
          byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    client = new OkHttpClient.Builder().addInterceptor(faults).build();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }

  private Response get() throws IOException {
    String url =
        "http://127.0.0.1:" + server.getAddress().getPort() + "/apis/coordination.k8s.io/v1/leases";
    return client.newCall(new Request.Builder().url(url).build()).execute();
  }

  @Test
  void passesEveryRequestToTheServerByDefault() throws IOException {
    for (int i = 0; i < 10; i++) {
      try (Response response = get()) {
        assertEquals(200, response.code());
        assertEquals("ok", response.body().string());
      }
    }

    assertEquals(10, served.get());
    assertEquals(10, faults.passed());
    assertEquals(0, faults.injected());
  }

  @Test
  void failsTheConfiguredShareWithoutContactingTheServer() throws IOException {
    faults.fail(0.5, 500);
    int failed = 0;

    for (int i = 0; i < 200; i++) {
      try (Response response = get()) {
        if (response.code() == 500) {
          failed++;
          assertTrue(response.body().string().contains("\"reason\":\"InternalError\""));
        } else {
          assertEquals(200, response.code());
        }
      }
    }

    assertEquals(failed, faults.injected());
    assertEquals(200 - failed, faults.passed());
    assertEquals(200 - failed, served.get(), "only passed requests reached the server");
    assertTrue(failed >= 70 && failed <= 130, failed + " of 200 failed with share 0.5");
  }

  @Test
  void throttlesWithRetryAfter() throws IOException {
    faults.throttle(1.0, Duration.ofSeconds(3));

    try (Response response = get()) {
      assertEquals(429, response.code());
      assertEquals("3", response.header("Retry-After"));
      assertTrue(response.body().string().contains("\"code\":429"));
    }
    assertEquals(0, served.get());
  }

  @Test
  void canBeSwitchedAtRunTime() throws IOException {
    faults.fail(1.0, 503);
    try (Response response = get()) {
      assertEquals(503, response.code());
    }

    faults.off();
    try (Response response = get()) {
      assertEquals(200, response.code());
    }
    assertEquals(1, faults.injected());
    assertEquals(1, faults.passed());
  }

  @Test
  void theSameSeedPicksTheSameRequests() throws IOException {
    HttpFaults again = HttpFaults.withSeed(11).fail(0.5, 500);
    OkHttpClient other = new OkHttpClient.Builder().addInterceptor(again).build();
    faults.fail(0.5, 500);
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    StringBuilder first = new StringBuilder();
    StringBuilder second = new StringBuilder();

    for (int i = 0; i < 30; i++) {
      try (Response a = client.newCall(new Request.Builder().url(url).build()).execute();
          Response b = other.newCall(new Request.Builder().url(url).build()).execute()) {
        first.append(a.code() == 500 ? 'x' : '.');
        second.append(b.code() == 500 ? 'x' : '.');
      }
    }

    assertEquals(first.toString(), second.toString());
    other.dispatcher().executorService().shutdown();
  }

  @Test
  void installsItselfOnAnApiClient() {
    ApiClient apiClient = new ApiClient();

    faults.installOn(apiClient);

    assertTrue(apiClient.getHttpClient().interceptors().contains(faults));
  }

  @Test
  void rejectsSettingsThatCannotBeMet() {
    IllegalArgumentException share =
        assertThrows(IllegalArgumentException.class, () -> faults.fail(2, 500));
    IllegalArgumentException status =
        assertThrows(IllegalArgumentException.class, () -> faults.fail(0.5, 404));
    IllegalArgumentException retry =
        assertThrows(
            IllegalArgumentException.class, () -> faults.throttle(0.5, Duration.ofMillis(1500)));

    assertTrue(share.getMessage().contains("0-1"), share.getMessage());
    assertTrue(status.getMessage().contains("429 or 500-599"), status.getMessage());
    assertTrue(retry.getMessage().contains("whole seconds"), retry.getMessage());
  }
}
